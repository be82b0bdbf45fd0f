SELECT tick_at, id FROM (SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_failed
WHERE r.outcome = 'failed' AND r.tick_at >= ?1 AND (r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?5 AS INTEGER)) LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1