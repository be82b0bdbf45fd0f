
SELECT s.*,
       r.id AS last_run, r.outcome AS last_outcome, r.code AS last_code, r.due_at AS last_due,
       r.tick_at AS last_tick_at, r.started_at AS last_started, r.ended_at AS last_ended,
       r.by_hand AS last_by_hand,
       l.started_at AS lease_started, l.id IS NOT NULL AS lease_open
FROM tickwork_schedules AS s
LEFT JOIN tickwork_runs AS r ON r.id = (
    SELECT id FROM tickwork_runs WHERE schedule = s.name ORDER BY due_at DESC, tick_at DESC LIMIT 1)
LEFT JOIN tickwork_runs AS l ON l.id = s.lease_run AND l.outcome = 'running'
WHERE s.name >= max(?1 || char(0), ?7) AND (?2 IS NULL OR s.name GLOB ?2) AND (?3 IS NULL OR substr(IFNULL(s.form, 'every '), 1, instr(IFNULL(s.form, 'every '), ' ') - 1) = ?3)
  AND s.name <= CASE WHEN ?6 IS NULL THEN ?8 ELSE (SELECT max(name) FROM (
      SELECT name FROM tickwork_schedules WHERE name >= max(?1 || char(0), ?7) AND name < ?8
      ORDER BY name LIMIT CAST(?6 AS INTEGER))) END
  AND CASE ?4
      WHEN 'active' THEN s.removed_at IS NULL
      WHEN 'paused' THEN s.paused = 1 AND s.removed_at IS NULL
      WHEN 'running' THEN l.id IS NOT NULL
      WHEN 'removed' THEN s.removed_at IS NOT NULL
      WHEN 'failing' THEN ((SELECT f.outcome FROM tickwork_runs AS f WHERE f.id = IFNULL(
    (SELECT r.id FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) AND r.due_at = s.retry_due
         AND r.started_at > (SELECT started_at FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1))
         ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1),
    (SELECT id FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1)))) IS 'failed')
      WHEN 'declared' THEN s.action IS NULL
      WHEN 'handed-over' THEN s.action IS NOT NULL
      ELSE 1 END
ORDER BY s.name LIMIT CAST(?5 AS INTEGER)
