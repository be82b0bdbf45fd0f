
SELECT * FROM tickwork_operator_log
WHERE delivery IN (
    SELECT d.id FROM tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event
    WHERE d.id IN (
    SELECT id FROM tickwork_deliveries WHERE state IN ('pending', 'outcome_unknown')
    UNION ALL SELECT id FROM tickwork_deliveries WHERE state IN ('failed', 'outcome_unknown') AND state = 'failed')
    ORDER BY e.emitted_at, d.id LIMIT CAST(?1 AS INTEGER))
ORDER BY at DESC
