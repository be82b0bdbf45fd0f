
WITH j AS (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS name, json_extract(value, '$[2]') AS body, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS queue, json_extract(value, '$[5]') AS delivery, json_extract(value, '$[6]') AS sender, json_extract(value, '$[7]') AS lease_until, json_extract(value, '$[8]') AS at, json_extract(value, '$[9]') AS trace FROM json_each(?1))
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT j.id, j.name, j.body, j.run, j.at, j.trace FROM j
WHERE j.run IS NULL OR EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = j.run AND r.outcome = 'succeeded')
ON CONFLICT (id) DO NOTHING
