
SELECT * FROM tickwork_runs
WHERE schedule = ?1 AND due_at <= ?2 AND (due_at < ?2 OR tick_at < ?3 OR (tick_at = ?3 AND id < ?4))
ORDER BY due_at DESC, tick_at DESC, id DESC LIMIT CAST(?5 AS INTEGER)
