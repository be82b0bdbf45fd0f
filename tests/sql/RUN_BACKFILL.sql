
SELECT b.* FROM tickwork_runs AS r
JOIN tickwork_backfilled AS x ON x.schedule = r.schedule AND x.at = r.due_at AND x.run = r.id
JOIN tickwork_backfills AS b ON b.id = x.backfill
WHERE r.id = ?1
