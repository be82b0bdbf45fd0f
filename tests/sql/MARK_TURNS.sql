
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS run, json_extract(value, '$[2]') AS outcome, json_extract(value, '$[3]') AS code, json_extract(value, '$[4]') AS detail, json_extract(value, '$[5]') AS ended, json_extract(value, '$[6]') AS trace, json_extract(value, '$[7]') AS event, json_extract(value, '$[8]') AS delivery, json_extract(value, '$[9]') AS queue, json_extract(value, '$[10]') AS sender, json_extract(value, '$[11]') AS lease_until, json_extract(value, '$[12]') AS retry, json_extract(value, '$[13]') AS run_page FROM json_each(?1))
UPDATE tickwork_schedules AS s
SET failing_since = CASE WHEN j.outcome = 'failed' THEN j.ended END,
    alert_since = CASE WHEN j.outcome = 'failed' THEN j.ended ELSE s.failing_since END,
    alert_run = j.run
FROM j
WHERE s.name = j.name AND (j.outcome = 'failed') = (s.failing_since IS NULL)
  AND (j.outcome <> 'failed' OR j.retry IS NULL OR NOT (s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)))
  AND ((SELECT f.outcome FROM tickwork_runs AS f WHERE f.id = IFNULL(
    (SELECT r.id FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) AND r.due_at = s.retry_due
         AND r.started_at > (SELECT started_at FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1))
         ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1),
    (SELECT id FROM (SELECT r.* FROM tickwork_runs AS r WHERE r.schedule = s.name AND r.outcome IN ('succeeded', 'failed') AND r.backfill IS NULL
          AND NOT (((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) OR EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running' AND l.attempt > 1)) AND r.due_at IS s.retry_due AND r.by_hand IS NULL) ORDER BY r.due_at DESC, r.started_at DESC LIMIT 1)))) IS 'failed') = (j.outcome = 'failed')
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r
              WHERE r.id = j.run AND r.outcome = j.outcome AND r.ended_at = j.ended AND r.backfill IS NULL)
