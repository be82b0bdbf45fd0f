SELECT * FROM (SELECT w.*, s.form AS form, s.label AS label, s.action AS action
FROM ({window}) AS w LEFT JOIN tickwork_schedules AS s ON s.name = w.schedule
WHERE {matched} LIMIT CAST(?6 AS INTEGER))