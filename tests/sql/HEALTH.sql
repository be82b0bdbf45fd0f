
SELECT a.last_tick, IFNULL(a.last_clock, a.last_tick) AS last_clock, (
    SELECT json_group_array(s.name) FROM tickwork_schedules AS s INDEXED BY tickwork_schedules_declared
    WHERE s.action IS NULL AND s.removed_at IS NULL AND ((SELECT f.outcome FROM tickwork_runs AS f WHERE f.id = IFNULL(
    (SELECT r.id FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) AND r.due_at = s.retry_due
         AND r.started_at > (SELECT started_at FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1))
         ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1),
    (SELECT id FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1)))) IS 'failed')
) AS failing
FROM tickwork_app AS a WHERE a.id = 1
