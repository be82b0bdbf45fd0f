lapsed AS (
    SELECT run, name FROM (
    SELECT r.id AS run, r.schedule AS name, IFNULL(r.lease_until, s.lease_until) AS lease_until FROM tickwork_runs AS r
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND (s.lease_run = r.id OR r.lease_until IS NOT NULL)
    WHERE r.id >= 'z' || printf('%012x', CAST(?2 AS INTEGER)) AND r.id < 'z' || printf('%012x', (SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1) + 1)
      AND r.outcome = 'running'
    UNION ALL
    SELECT r.id, r.schedule, s.lease_until FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND s.lease_run = r.id
    WHERE r.id < 'z' AND r.tick_at >= CAST(?2 AS INTEGER) AND r.tick_at <= (SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1) AND r.outcome = 'running') WHERE lease_until <= ?1)