
SELECT e.id AS event, e.name, e.body, d.id AS delivery, d.queue, d.state, d.attempts, d.last_error
FROM tickwork_runs AS r
JOIN tickwork_events AS e INDEXED BY tickwork_events_by_emitted ON e.emitted_at = r.ended_at AND e.run = r.id
LEFT JOIN tickwork_deliveries AS d ON d.event = e.id
WHERE r.id = ?1 ORDER BY e.id LIMIT CAST(?2 AS INTEGER)
