
SELECT s.*,
       r.id AS last_run, r.outcome AS last_outcome, r.code AS last_code, r.due_at AS last_due,
       r.tick_at AS last_tick_at, r.started_at AS last_started, r.ended_at AS last_ended,
       r.by_hand AS last_by_hand,
       l.started_at AS lease_started, l.id IS NOT NULL AS lease_open
FROM tickwork_schedules AS s
LEFT JOIN tickwork_runs AS r ON r.id = (
    SELECT id FROM tickwork_runs WHERE schedule = s.name ORDER BY due_at DESC, tick_at DESC LIMIT 1)
LEFT JOIN tickwork_runs AS l ON l.id = s.lease_run AND l.outcome = 'running'
WHERE {kind} AND {cursor} AND {match}
  AND CASE ?1 WHEN 'live' THEN s.removed_at IS NULL WHEN 'paused' THEN s.removed_at IS NULL AND s.paused = 1
              WHEN 'ended' THEN s.removed_at IS NOT NULL ELSE 1 END
ORDER BY s.name LIMIT CAST(?3 AS INTEGER)
