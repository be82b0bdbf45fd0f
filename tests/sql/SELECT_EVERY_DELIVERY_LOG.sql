
SELECT * FROM tickwork_operator_log
WHERE delivery IN (
    SELECT d.id FROM tickwork_events AS e INDEXED BY tickwork_events_by_emitted CROSS JOIN tickwork_deliveries AS d ON d.event = e.id
    WHERE 1
    ORDER BY e.emitted_at, d.id LIMIT CAST(?1 AS INTEGER))
ORDER BY at DESC
