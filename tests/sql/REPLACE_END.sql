
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS action, json_extract(value, '$[2]') AS timing, json_extract(value, '$[3]') AS input, json_extract(value, '$[4]') AS form, json_extract(value, '$[5]') AS every_ms, json_extract(value, '$[6]') AS due_at, json_extract(value, '$[7]') AS expires_at, json_extract(value, '$[8]') AS tick, json_extract(value, '$[9]') AS label, json_extract(value, '$[10]') AS replaces FROM json_each(?1))
UPDATE tickwork_schedules AS s SET removed_at = ?2, ended = 'replaced', replaced_by = j.name
FROM j WHERE s.name = j.replaces AND s.action IS NOT NULL AND s.ended IS NULL
RETURNING name
