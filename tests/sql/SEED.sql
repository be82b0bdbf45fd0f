
INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick, jitter_ms, jitter_seed)
SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
       json_extract(value, '$[3]'), ?2, ?2, json_extract(value, '$[4]'), json_extract(value, '$[5]')
FROM json_each(?1) WHERE true
ON CONFLICT (name) DO NOTHING
