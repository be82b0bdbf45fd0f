
UPDATE tickwork_schedules INDEXED BY tickwork_schedules_declared
SET removed_at = ?2, last_tick = IFNULL((SELECT prev_tick FROM tickwork_app WHERE id = 1), last_tick)
WHERE removed_at IS NULL AND action IS NULL AND name NOT IN (SELECT value FROM json_each(?1))
