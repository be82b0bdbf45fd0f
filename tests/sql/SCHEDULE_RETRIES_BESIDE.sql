
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS run, json_extract(value, '$[2]') AS outcome, json_extract(value, '$[3]') AS code, json_extract(value, '$[4]') AS kind, json_extract(value, '$[5]') AS detail, json_extract(value, '$[6]') AS ended, json_extract(value, '$[7]') AS items, json_extract(value, '$[8]') AS batches, json_extract(value, '$[9]') AS events, json_extract(value, '$[10]') AS retry, json_extract(value, '$[11]') AS attempt, json_extract(value, '$[12]') AS for_due, json_extract(value, '$[13]') AS at, json_extract(value, '$[14]') AS n, json_extract(value, '$[15]') AS i, json_extract(value, '$[16]') AS dst, json_extract(value, '$[17]') AS stack FROM json_each(?1))
UPDATE tickwork_schedules AS s
SET retry_next = s.due_at, due_at = MIN(s.due_at, j.retry), retry_attempt = j.attempt, retry_due = j.for_due,
    retry_at = j.at, retry_n = j.n, retry_i = j.i, retry_dst = j.dst
FROM j WHERE s.name = j.name AND s.retry_attempt IS NULL AND j.retry IS NOT NULL AND s.removed_at IS NULL
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = j.run AND r.outcome = 'running')
