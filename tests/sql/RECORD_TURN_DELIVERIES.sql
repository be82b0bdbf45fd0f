
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS run, json_extract(value, '$[2]') AS outcome, json_extract(value, '$[3]') AS code, json_extract(value, '$[4]') AS detail, json_extract(value, '$[5]') AS ended, json_extract(value, '$[6]') AS trace, json_extract(value, '$[7]') AS event, json_extract(value, '$[8]') AS delivery, json_extract(value, '$[9]') AS queue, json_extract(value, '$[10]') AS sender, json_extract(value, '$[11]') AS lease_until, json_extract(value, '$[12]') AS retry, json_extract(value, '$[13]') AS run_page FROM json_each(?1))
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, lease_run, lease_until, updated_at)
SELECT j.delivery, j.event, j.queue, 'running', 1, j.sender, j.lease_until, j.ended
FROM j JOIN tickwork_events AS e ON e.id = j.event
WHERE true
ON CONFLICT (id) DO NOTHING

RETURNING id, queue, (SELECT name FROM tickwork_events WHERE id = event) AS name,
  (SELECT body FROM tickwork_events WHERE id = event) AS body,
  (SELECT trace FROM tickwork_events WHERE id = event) AS trace

