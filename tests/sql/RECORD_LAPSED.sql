
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
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT s.alert_run, 'tickwork.schedule_failing',
       json_patch(json_object('schedule', s.name, 'outcome', 'failed',
                   'code', 'lease_expired', 'detail', 'the run held its lease past ' || CAST(?1 AS INTEGER) || ' and its end was never recorded: ' || 'its worker was lost, or could not reach D1 to record the end',
                   'since', strftime('%Y-%m-%dT%H:%M:%fZ', ?1 / 1000.0, 'unixepoch'), 'at', strftime('%Y-%m-%dT%H:%M:%fZ', ?1 / 1000.0, 'unixepoch'),
                   'run', r.id, 'trace', r.trace), json_object('run_url', ?3 || r.id)),
       NULL, ?1, r.trace
FROM lapsed AS x JOIN tickwork_schedules AS s ON s.name = x.name JOIN tickwork_runs AS r ON r.id = x.run
WHERE s.alert_run = 'lapsed-' || x.run AND s.failing_since = ?1
ON CONFLICT (id) DO NOTHING
