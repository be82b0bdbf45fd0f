
SELECT d.*, e.name AS event_name, substr(e.body, 1, 200) AS body, length(e.body) AS body_length,
       e.run AS run, e.emitted_at AS emitted_at
FROM tickwork_events AS e INDEXED BY tickwork_events_by_emitted CROSS JOIN tickwork_deliveries AS d ON d.event = e.id
WHERE 1
ORDER BY e.emitted_at, d.id LIMIT CAST(?1 AS INTEGER)
