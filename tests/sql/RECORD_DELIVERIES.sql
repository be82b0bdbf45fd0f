
WITH j AS (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS name, json_extract(value, '$[2]') AS body, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS queue, json_extract(value, '$[5]') AS delivery, json_extract(value, '$[6]') AS sender, json_extract(value, '$[7]') AS lease_until, json_extract(value, '$[8]') AS at, json_extract(value, '$[9]') AS trace FROM json_each(?1))
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, lease_run, lease_until, updated_at)
SELECT j.delivery, j.id, j.queue, 'running', 1, j.sender, j.lease_until, j.at
FROM j JOIN tickwork_events AS e ON e.id = j.id
WHERE true
ON CONFLICT (id) DO NOTHING
