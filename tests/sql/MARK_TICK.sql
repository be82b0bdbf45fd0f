
UPDATE tickwork_app SET prev_tick = last_tick, last_tick = MAX(IFNULL(last_tick, ?1), ?1),
    prev_clock = last_clock, last_clock = MAX(IFNULL(last_clock, ?4), ?4),
    lapse_clear = CASE WHEN EXISTS (SELECT 1 FROM (
    SELECT r.id AS run, r.schedule AS name, IFNULL(r.lease_until, s.lease_until) AS lease_until FROM tickwork_runs AS r
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND (s.lease_run = r.id OR r.lease_until IS NOT NULL)
    WHERE r.id >= 'z' || printf('%012x', (SELECT MAX(CAST(IFNULL(lapse_clear, 0) - IFNULL(lease_reach, ?2) + 1 AS INTEGER), 0) FROM tickwork_app WHERE id = 1)) AND r.id < 'z' || printf('%012x', (SELECT CAST(?4 - IFNULL(lease_short, ?3) AS INTEGER) FROM tickwork_app WHERE id = 1) + 1)
      AND r.outcome = 'running'
    UNION ALL
    SELECT r.id, r.schedule, s.lease_until FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND s.lease_run = r.id
    WHERE r.id < 'z' AND r.tick_at >= (SELECT MAX(CAST(IFNULL(lapse_clear, 0) - IFNULL(lease_reach, ?2) + 1 AS INTEGER), 0) FROM tickwork_app WHERE id = 1) AND r.tick_at <= (SELECT CAST(?4 - IFNULL(lease_short, ?3) AS INTEGER) FROM tickwork_app WHERE id = 1) AND r.outcome = 'running') WHERE lease_until <= ?4)
                       THEN lapse_clear ELSE MAX(IFNULL(lapse_clear, ?4), ?4) END,
    lease_reach = MAX(IFNULL(lease_reach, ?2), ?2), lease_short = MIN(IFNULL(lease_short, ?3), ?3)
WHERE id = 1
RETURNING fingerprint, prev_tick, prev_clock, IFNULL(lapse_clear < ?4, 1) AS lapsed,
  MAX(CAST(IFNULL(lapse_clear, 0) - lease_reach + 1 AS INTEGER), 0) AS lapse_from,
  (housekeeping_owner IS NULL OR housekeeping_until <= ?4)
      AND (housekeeping_done_at IS NULL OR housekeeping_done_at <= ?4 - 3600000) AS housekeeping_due,
  (SELECT MIN(at) FROM (
      SELECT MIN(next_attempt_at) AS at FROM tickwork_deliveries WHERE state IN ('pending', 'outcome_unknown')
      UNION ALL SELECT MIN(lease_until) FROM tickwork_deliveries WHERE state = 'running')) AS sweep_at,
  EXISTS (SELECT 1 FROM tickwork_backfills AS b INDEXED BY tickwork_backfills_pending WHERE b.state = 'pending'
          AND NOT EXISTS (SELECT 1 FROM tickwork_schedules AS s WHERE s.name = b.schedule AND (s.paused != 0 AND (s.ended IS NULL OR s.ended = 'done') OR s.removed_at IS NOT NULL AND s.ended IS NULL)))
      AS backfill_pending,
  (SELECT json_group_array(at) FROM (
      SELECT DISTINCT (runs_at + 999) / 1000 * 1000 AS at FROM tickwork_schedules INDEXED BY tickwork_schedules_by_due
      WHERE removed_at IS NULL AND runs_at > ?1 AND runs_at < ?5 AND paused = 0 ORDER BY runs_at LIMIT 60)) AS wakes,
  EXISTS (SELECT 1 FROM tickwork_workflow_runs INDEXED BY tickwork_workflow_runs_by_check WHERE check_at <= ?1)
      AS workflows_due
