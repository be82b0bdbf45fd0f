
SELECT * FROM tickwork_operator_log WHERE at <= ?1 AND (at < ?1 OR id < ?2)
ORDER BY at DESC, id DESC LIMIT CAST(?3 AS INTEGER)
