{windows}
SELECT r.*, s.form AS form, s.label AS label, s.action AS action
FROM (SELECT * FROM new UNION ALL SELECT * FROM old) AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
LEFT JOIN stop ON (r.tick_at, r.id) < (stop.tick_at, stop.id)
WHERE stop.id IS NULL AND {matched}
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?6 AS INTEGER)
