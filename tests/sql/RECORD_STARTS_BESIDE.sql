
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS due, json_extract(value, '$[2]') AS next_due, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS at, json_extract(value, '$[5]') AS n, json_extract(value, '$[6]') AS i, json_extract(value, '$[7]') AS dst, json_extract(value, '$[8]') AS moment, json_extract(value, '$[9]') AS reason, json_extract(value, '$[10]') AS detail, json_extract(value, '$[11]') AS requested, json_extract(value, '$[12]') AS by_hand, json_extract(value, '$[13]') AS trace, json_extract(value, '$[14]') AS for_due, json_extract(value, '$[15]') AS attempt, json_extract(value, '$[16]') AS retrying FROM json_each(?1))
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome, at, n, i, dst, by_hand, trace, attempt, lease_until)
SELECT j.run, s.name, j.for_due, ?2, ?3, 'running', j.at, j.n, j.i, j.dst, j.by_hand, j.trace, j.attempt, ?4
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.lease_run = j.run
WHERE j.moment IS NULL OR EXISTS (
    SELECT 1 FROM tickwork_moments AS m WHERE m.action = j.moment AND m.at = j.at AND m.run = j.run)
RETURNING id
