
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS due, json_extract(value, '$[2]') AS next_due, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS at, json_extract(value, '$[5]') AS n, json_extract(value, '$[6]') AS i, json_extract(value, '$[7]') AS dst, json_extract(value, '$[8]') AS moment, json_extract(value, '$[9]') AS reason, json_extract(value, '$[10]') AS detail, json_extract(value, '$[11]') AS requested, json_extract(value, '$[12]') AS by_hand, json_extract(value, '$[13]') AS trace, json_extract(value, '$[14]') AS for_due, json_extract(value, '$[15]') AS attempt, json_extract(value, '$[16]') AS retrying FROM json_each(?1))
UPDATE tickwork_schedules AS s SET due_at = j.next_due, skip_run = j.run, retry_attempt = NULL,
    ended = CASE WHEN j.reason IN ('expired', 'action_gone') THEN j.reason ELSE ended END,
    removed_at = CASE WHEN j.reason IN ('expired', 'action_gone') THEN ?2 ELSE removed_at END
FROM j
WHERE s.name = j.name AND s.due_at = j.due AND s.removed_at IS NULL AND (s.retry_attempt IS j.retrying) AND CASE j.reason
    WHEN 'expired' THEN 1
    WHEN 'action_gone' THEN 1
    WHEN 'paused' THEN s.paused = 1
    WHEN 'running' THEN s.paused = 0 AND (s.lease_until > ?3 AND EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running'))
    WHEN 'superseded' THEN NOT (s.lease_until > ?3 AND EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running'))
    ELSE s.paused = 0 AND NOT (s.lease_until > ?3 AND EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running'))
END
