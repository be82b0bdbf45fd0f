SELECT * FROM tickwork_operator_log WHERE delivery IN (SELECT id FROM (SELECT d.*, e.name AS event_name, substr(e.body, 1, 200) AS body, length(e.body) AS body_length,
       e.run AS run, e.emitted_at AS emitted_at,
       (SELECT r.schedule FROM tickwork_runs AS r WHERE r.id = e.run) AS schedule FROM tickwork_events AS e INDEXED BY tickwork_events_by_emitted CROSS JOIN tickwork_deliveries AS d ON d.event = e.id
WHERE e.emitted_at >= ?1 AND e.emitted_at < ?2 AND (e.emitted_at, d.id) > (?3, ?4)
  AND (?5 IS NULL OR d.state = ?5) AND (?6 IS NULL OR d.queue GLOB ?6) AND (?7 IS NULL OR e.name GLOB ?7)
  AND (?8 IS NULL OR (SELECT r.schedule FROM tickwork_runs AS r WHERE r.id = e.run) GLOB ?8) AND ?10 IS NOT NULL
ORDER BY e.emitted_at, d.id LIMIT CAST(?9 AS INTEGER))) ORDER BY at DESC