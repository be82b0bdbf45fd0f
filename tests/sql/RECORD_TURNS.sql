
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS run, json_extract(value, '$[2]') AS outcome, json_extract(value, '$[3]') AS code, json_extract(value, '$[4]') AS detail, json_extract(value, '$[5]') AS ended, json_extract(value, '$[6]') AS trace, json_extract(value, '$[7]') AS event, json_extract(value, '$[8]') AS delivery, json_extract(value, '$[9]') AS queue, json_extract(value, '$[10]') AS sender, json_extract(value, '$[11]') AS lease_until, json_extract(value, '$[12]') AS retry, json_extract(value, '$[13]') AS run_page FROM json_each(?1))
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT j.event, CASE WHEN j.outcome = 'failed' THEN 'tickwork.schedule_failing' ELSE 'tickwork.schedule_recovered' END,
       json_patch(json_object('schedule', j.name, 'outcome', j.outcome, 'code', j.code, 'detail', j.detail,
                   'since', strftime('%Y-%m-%dT%H:%M:%fZ', s.alert_since / 1000.0, 'unixepoch'), 'at', strftime('%Y-%m-%dT%H:%M:%fZ', j.ended / 1000.0, 'unixepoch'),
                   'run', j.run, 'trace', j.trace), json_object('run_url', j.run_page || j.run)),
       NULL, j.ended, j.trace
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.alert_run = j.run
WHERE true
ON CONFLICT (id) DO NOTHING
