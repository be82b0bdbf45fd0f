
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS at, json_extract(value, '$[2]') AS n, json_extract(value, '$[3]') AS i, json_extract(value, '$[4]') AS dst, json_extract(value, '$[5]') AS run, json_extract(value, '$[6]') AS backfill, json_extract(value, '$[7]') AS who, json_extract(value, '$[8]') AS trace, json_extract(value, '$[9]') AS next FROM json_each(?1))
INSERT INTO tickwork_backfilled (schedule, at, run, backfill)
SELECT j.name, j.at, j.run, j.backfill FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.lease_run = j.run
WHERE true
ON CONFLICT DO NOTHING
