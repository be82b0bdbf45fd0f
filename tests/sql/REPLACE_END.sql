
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS action, json_extract(value, '$[2]') AS timing, json_extract(value, '$[3]') AS input, json_extract(value, '$[4]') AS form, json_extract(value, '$[5]') AS every_ms, json_extract(value, '$[6]') AS due_at, json_extract(value, '$[7]') AS expires_at, json_extract(value, '$[8]') AS tick, json_extract(value, '$[9]') AS label, json_extract(value, '$[10]') AS jitter_ms, json_extract(value, '$[11]') AS jitter_seed, json_extract(value, '$[12]') AS concurrency_key, json_extract(value, '$[13]') AS concurrency_limit, json_extract(value, '$[14]') AS replaces FROM json_each(?1)), k AS (
    SELECT j.name, j.replaces,
           EXISTS (SELECT 1 FROM tickwork_schedules AS n WHERE n.name = j.name AND n.ended IS NULL) AS taken
    FROM j)
UPDATE tickwork_schedules AS s
SET removed_at = CASE WHEN k.taken THEN ?2 ELSE s.removed_at END,
    ended = CASE WHEN k.taken THEN 'replaced' END,
    replaced_by = CASE WHEN k.taken THEN k.name END
FROM k WHERE s.name = k.replaces AND s.action IS NOT NULL AND s.ended IS NULL
RETURNING name, ended
