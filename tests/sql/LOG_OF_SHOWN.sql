SELECT * FROM tickwork_operator_log WHERE delivery IN (SELECT value FROM json_each(?1))
ORDER BY at DESC