
UPDATE tickwork_schedules AS s
SET concurrency_key = json_extract(j.value, '$[1]'), concurrency_limit = json_extract(j.value, '$[2]')
FROM json_each(?1) AS j
WHERE s.name = json_extract(j.value, '$[0]') AND s.action IS NULL
