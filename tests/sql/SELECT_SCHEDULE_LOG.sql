
SELECT * FROM tickwork_operator_log
WHERE schedule = ?1 AND (?2 IS NULL OR at >= ?2)
ORDER BY at DESC LIMIT CAST(?3 AS INTEGER)
