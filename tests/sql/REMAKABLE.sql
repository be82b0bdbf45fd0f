r.outcome = 'failed' AND (s.removed_at IS NULL OR s.ended = 'done')
  AND NOT (r.by_hand IS NOT NULL AND r.due_at > r.tick_at)
  AND NOT ((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) AND s.retry_due IS r.due_at)
  AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS o WHERE o.schedule = r.schedule AND o.due_at = r.due_at
                  AND o.outcome IN ('succeeded', 'running'))
  AND NOT EXISTS (SELECT 1 FROM tickwork_backfills AS b WHERE b.schedule = r.schedule AND b.state = 'pending'
                  AND b.remake_of IS NOT NULL AND b.from_at = r.due_at)