
SELECT * FROM tickwork_runs
WHERE schedule = ?1 AND (?2 IS NULL OR tick_at >= ?2) AND (?3 = 0 OR outcome = 'failed')
ORDER BY due_at DESC, tick_at DESC LIMIT CAST(?4 AS INTEGER)
