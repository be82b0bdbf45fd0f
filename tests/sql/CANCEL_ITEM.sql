
UPDATE tickwork_schedules SET removed_at = ?2, ended = 'cancelled'
WHERE name = ?1 AND action IS NOT NULL AND ended IS NULL RETURNING name
