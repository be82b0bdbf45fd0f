
SELECT d.*, e.name AS event_name, substr(e.body, 1, 200) AS body, length(e.body) AS body_length,
       e.run AS run, e.emitted_at AS emitted_at
FROM tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event
WHERE d.id IN (
    SELECT id FROM tickwork_deliveries WHERE state IN ('pending', 'outcome_unknown')
    UNION ALL SELECT id FROM tickwork_deliveries WHERE state IN ('failed', 'outcome_unknown') AND state = 'failed')
ORDER BY e.emitted_at, d.id LIMIT CAST(?1 AS INTEGER)
