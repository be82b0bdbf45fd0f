
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS due, json_extract(value, '$[2]') AS next_due, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS at, json_extract(value, '$[5]') AS n, json_extract(value, '$[6]') AS i, json_extract(value, '$[7]') AS dst, json_extract(value, '$[8]') AS moment, json_extract(value, '$[9]') AS reason, json_extract(value, '$[10]') AS detail, json_extract(value, '$[11]') AS requested, json_extract(value, '$[12]') AS by_hand, json_extract(value, '$[13]') AS trace, json_extract(value, '$[14]') AS for_due, json_extract(value, '$[15]') AS attempt, json_extract(value, '$[16]') AS retrying FROM json_each(?1))
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, lease_run, lease_until, updated_at)
SELECT 'skipped-delivery-' || j.run, e.id, ?3, 'running', 1, ?4, ?5, ?2
FROM j JOIN tickwork_events AS e ON e.id = 'skipped-' || j.run
WHERE true
ON CONFLICT (id) DO NOTHING

RETURNING id, queue, (SELECT name FROM tickwork_events WHERE id = event) AS name,
  (SELECT body FROM tickwork_events WHERE id = event) AS body,
  (SELECT trace FROM tickwork_events WHERE id = event) AS trace

