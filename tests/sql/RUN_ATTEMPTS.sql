
SELECT a.id, a.tick_at, a.started_at, a.ended_at, a.outcome, a.code, a.attempt, a.by_hand, a.backfill, a.trace,
       a.due_at, b.remake_of
FROM tickwork_runs AS r JOIN tickwork_runs AS a ON a.schedule = r.schedule AND a.due_at = r.due_at
LEFT JOIN tickwork_backfilled AS x ON x.schedule = a.schedule AND x.at = a.due_at AND x.run = a.id
LEFT JOIN tickwork_backfills AS b ON b.id = x.backfill
WHERE r.id = ?1 ORDER BY a.tick_at, a.id LIMIT CAST(?2 AS INTEGER)
