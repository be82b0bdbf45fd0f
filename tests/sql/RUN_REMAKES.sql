
SELECT b.* FROM tickwork_runs AS r
JOIN tickwork_backfills AS b ON b.schedule = r.schedule AND b.from_at = r.due_at AND b.remake_of IS NOT NULL
WHERE r.id = ?1 ORDER BY b.requested_at DESC LIMIT 20
