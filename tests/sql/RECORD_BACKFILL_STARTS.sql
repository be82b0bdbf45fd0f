
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS at, json_extract(value, '$[2]') AS n, json_extract(value, '$[3]') AS i, json_extract(value, '$[4]') AS dst, json_extract(value, '$[5]') AS run, json_extract(value, '$[6]') AS backfill, json_extract(value, '$[7]') AS who, json_extract(value, '$[8]') AS trace, json_extract(value, '$[9]') AS next FROM json_each(?1))
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome, at, n, i, dst, backfill, trace)
SELECT j.run, j.name, j.at, ?2, ?3, 'running', j.at, j.n, j.i, j.dst, j.who, j.trace
FROM j JOIN tickwork_backfilled AS x ON x.schedule = j.name AND x.at = j.at AND x.run = j.run
WHERE true
RETURNING id
