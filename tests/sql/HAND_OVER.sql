
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS action, json_extract(value, '$[2]') AS timing, json_extract(value, '$[3]') AS input, json_extract(value, '$[4]') AS form, json_extract(value, '$[5]') AS every_ms, json_extract(value, '$[6]') AS due_at, json_extract(value, '$[7]') AS expires_at, json_extract(value, '$[8]') AS tick, json_extract(value, '$[9]') AS label, json_extract(value, '$[10]') AS jitter_ms, json_extract(value, '$[11]') AS jitter_seed, json_extract(value, '$[12]') AS concurrency_key, json_extract(value, '$[13]') AS concurrency_limit FROM json_each(?1))
INSERT INTO tickwork_schedules
    (name, action, timing, input, form, every_ms, due_at, expires_at, first_tick, last_tick, label, jitter_ms,
     jitter_seed, concurrency_key, concurrency_limit)
SELECT name, action, timing, input, form, every_ms, due_at, expires_at, tick, tick, label, jitter_ms, jitter_seed,
       concurrency_key, concurrency_limit FROM j WHERE true
ON CONFLICT (name) DO UPDATE
SET due_at = excluded.due_at, first_tick = excluded.first_tick, removed_at = NULL, ended = NULL,
    run_requested_at = NULL, run_requested_by = NULL, retry_attempt = NULL, label = excluded.label,
    calls_made = NULL, replaced_by = NULL, replaces = excluded.replaces
WHERE ended IN ('cancelled', 'expired', 'action_gone', 'replaced')
