
WITH j AS (SELECT json_extract(value, '$[0]') AS id, json_extract(value, '$[1]') AS sender, json_extract(value, '$[2]') AS state, json_extract(value, '$[3]') AS lease_until, json_extract(value, '$[4]') AS next_attempt, json_extract(value, '$[5]') AS error FROM json_each(?1))
UPDATE tickwork_deliveries AS d
SET state = j.state, lease_until = j.lease_until, next_attempt_at = j.next_attempt,
    lease_run = CASE WHEN j.state = 'running' THEN j.sender END, last_error = j.error, updated_at = ?2
FROM j WHERE d.id = j.id AND d.state = 'running' AND d.lease_run = j.sender
