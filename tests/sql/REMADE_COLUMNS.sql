r.id, r.schedule, r.due_at, r.tick_at, r.by_hand, r.outcome, s.removed_at, s.ended, s.paused, s.retry_attempt,
       s.due_at AS schedule_due, ((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) AND s.retry_due IS r.due_at) AS retry_pending,
       (SELECT max(o.outcome = 'succeeded') FROM tickwork_runs AS o WHERE o.schedule = r.schedule
        AND o.due_at = r.due_at) AS succeeded,
       (SELECT max(o.outcome = 'running') FROM tickwork_runs AS o WHERE o.schedule = r.schedule
        AND o.due_at = r.due_at) AS running,
       (SELECT b.id FROM tickwork_backfills AS b WHERE b.schedule = r.schedule AND b.state = 'pending'
        AND b.remake_of IS NOT NULL AND b.from_at = r.due_at) AS waiting