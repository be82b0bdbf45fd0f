
SELECT CASE WHEN s.removed_at IS NULL THEN a.last_tick ELSE s.last_tick END AS last_tick
FROM tickwork_schedules AS s, tickwork_app AS a WHERE s.name = ?1 AND a.id = 1
