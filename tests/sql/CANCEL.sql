
UPDATE tickwork_schedules SET removed_at = ?2, ended = 'cancelled'
WHERE name IN (SELECT value FROM json_each(?1)) AND action IS NOT NULL AND ended IS NULL
RETURNING name
