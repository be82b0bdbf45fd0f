
SELECT * FROM tickwork_operator_log
WHERE delivery IN (
    SELECT d.id FROM {rows}
    WHERE {which}
    ORDER BY e.emitted_at, d.id LIMIT CAST(?1 AS INTEGER))
ORDER BY at DESC
