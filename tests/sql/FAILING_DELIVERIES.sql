
SELECT d.id, d.state, d.attempts, d.last_error, d.updated_at, e.name AS event_name, e.run AS run
FROM tickwork_deliveries AS d INDEXED BY tickwork_deliveries_failing JOIN tickwork_events AS e ON e.id = d.event
WHERE d.state IN ('failed', 'outcome_unknown') ORDER BY d.updated_at DESC LIMIT CAST(?1 AS INTEGER)
