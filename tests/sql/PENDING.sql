
SELECT s.*, EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running') AS lease_open, b.id AS backfill_id, b.from_at AS backfill_from, b.to_at AS backfill_to, b.who AS backfill_who,
       b.next_at AS backfill_next, s.name IS NULL OR (s.ended IS NOT NULL AND s.ended != 'done') AS gone
FROM tickwork_backfills AS b INDEXED BY tickwork_backfills_pending
LEFT JOIN tickwork_schedules AS s ON s.name = b.schedule
WHERE b.state = 'pending' AND (s.paused = 0 AND (s.removed_at IS NULL OR s.ended = 'done') AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running') AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS l INDEXED BY tickwork_runs_beside WHERE l.schedule = s.name AND l.outcome = 'running' AND l.lease_until IS NOT NULL) OR s.name IS NULL OR (s.ended IS NOT NULL AND s.ended != 'done'))
ORDER BY b.requested_at, b.rowid LIMIT CAST(?1 AS INTEGER)
