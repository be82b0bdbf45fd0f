
INSERT INTO tickwork_backfills (id, schedule, from_at, to_at, who, requested_at, next_at)
SELECT ?2, name, ?5, ?6, ?4, ?3, ?5 FROM tickwork_schedules WHERE name = ?1 AND (removed_at IS NULL OR ended = 'done')
RETURNING id
