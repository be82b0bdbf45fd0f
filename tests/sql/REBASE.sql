
UPDATE tickwork_schedules AS s
SET every_ms = json_extract(j.value, '$[1]'), form = json_extract(j.value, '$[2]'),
    due_at = json_extract(j.value, '$[3]'), removed_at = NULL, retry_attempt = NULL,
    jitter_ms = json_extract(j.value, '$[6]'), jitter_seed = json_extract(j.value, '$[7]')
FROM json_each(?1) AS j
WHERE s.name = json_extract(j.value, '$[0]') AND IFNULL(s.form, 'every ' || s.every_ms) = json_extract(j.value, '$[4]')
  AND s.due_at = json_extract(j.value, '$[5]')
