
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS due, json_extract(value, '$[2]') AS next_due, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS at, json_extract(value, '$[5]') AS n, json_extract(value, '$[6]') AS i, json_extract(value, '$[7]') AS dst, json_extract(value, '$[8]') AS moment, json_extract(value, '$[9]') AS reason, json_extract(value, '$[10]') AS detail, json_extract(value, '$[11]') AS requested, json_extract(value, '$[12]') AS by_hand, json_extract(value, '$[13]') AS trace, json_extract(value, '$[14]') AS for_due, json_extract(value, '$[15]') AS attempt, json_extract(value, '$[16]') AS retrying FROM json_each(?1))
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT s.alert_run, 'tickwork.schedule_failing',
       json_patch(json_object('schedule', s.name, 'outcome', f.outcome, 'code', f.code, 'detail', f.detail,
                   'since', strftime('%Y-%m-%dT%H:%M:%fZ', s.alert_since / 1000.0, 'unixepoch'), 'at', strftime('%Y-%m-%dT%H:%M:%fZ', s.alert_since / 1000.0, 'unixepoch'),
                   'run', f.id, 'trace', f.trace), json_object('run_url', ?3 || f.id)),
       NULL, ?2, f.trace
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.alert_run = 'skipped-' || j.run
  JOIN tickwork_runs AS f ON f.id = IFNULL(
    (SELECT r.id FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) AND r.due_at = s.retry_due
         AND r.started_at > (SELECT started_at FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1))
         ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1),
    (SELECT id FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1)))
WHERE true
ON CONFLICT (id) DO NOTHING
