
DELETE FROM tickwork_moments WHERE rowid IN (
    SELECT rowid FROM tickwork_moments
    WHERE at < (SELECT MIN(due_at) FROM tickwork_schedules WHERE removed_at IS NULL AND action IS NULL)
    LIMIT 1000)
