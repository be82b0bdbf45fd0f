
WITH lapsed AS (
    SELECT run, name FROM (
    SELECT r.id AS run, r.schedule AS name, IFNULL(r.lease_until, s.lease_until) AS lease_until FROM tickwork_runs AS r
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND (s.lease_run = r.id OR r.lease_until IS NOT NULL)
    WHERE r.id >= 'z' || printf('%012x', CAST(?2 AS INTEGER)) AND r.id < 'z' || printf('%012x', (SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1) + 1)
      AND r.outcome = 'running'
    UNION ALL
    SELECT r.id, r.schedule, s.lease_until FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND s.lease_run = r.id
    WHERE r.id < 'z' AND r.tick_at >= CAST(?2 AS INTEGER) AND r.tick_at <= (SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1) AND r.outcome = 'running') WHERE lease_until <= ?1)
UPDATE tickwork_schedules AS s SET failing_since = ?1, alert_since = ?1, alert_run = 'lapsed-' || x.run
FROM lapsed AS x
WHERE s.name = x.name AND s.failing_since IS NULL
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = x.run AND r.backfill IS NULL
              AND NOT ((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) AND r.by_hand IS NULL))
