
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS due, json_extract(value, '$[2]') AS next_due, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS at, json_extract(value, '$[5]') AS n, json_extract(value, '$[6]') AS i, json_extract(value, '$[7]') AS dst, json_extract(value, '$[8]') AS moment, json_extract(value, '$[9]') AS reason, json_extract(value, '$[10]') AS detail, json_extract(value, '$[11]') AS requested, json_extract(value, '$[12]') AS by_hand, json_extract(value, '$[13]') AS trace, json_extract(value, '$[14]') AS for_due, json_extract(value, '$[15]') AS attempt, json_extract(value, '$[16]') AS retrying FROM json_each(?1))
UPDATE tickwork_schedules AS s SET lease_run = j.run, lease_until = ?2, due_at = j.next_due, retry_attempt = CASE WHEN j.next_due = s.due_at THEN s.retry_attempt END,
    run_requested_by = CASE WHEN run_requested_at = j.requested THEN NULL ELSE run_requested_by END,
    run_requested_at = CASE WHEN run_requested_at = j.requested THEN NULL ELSE run_requested_at END,
    ended = CASE WHEN j.next_due >= 9007199254740991 AND action IS NOT NULL THEN 'done' ELSE ended END,
    removed_at = CASE WHEN j.next_due >= 9007199254740991 AND action IS NOT NULL THEN ?3 ELSE removed_at END
FROM j
WHERE s.name = j.name AND s.due_at = j.due AND s.paused = 0 AND s.removed_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM tickwork_app WHERE id = 1 AND lapse_clear >= ?2)
  AND (j.requested IS NULL OR s.run_requested_at = j.requested) AND (s.retry_attempt IS j.retrying)
RETURNING lease_run AS run
