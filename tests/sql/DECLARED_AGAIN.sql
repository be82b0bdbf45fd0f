
UPDATE tickwork_schedules SET removed_at = NULL
WHERE removed_at IS NOT NULL AND name IN (SELECT value FROM json_each(?1))
