
WITH RECURSIVE lapsed AS (
    SELECT run, name FROM (
    SELECT r.id AS run, r.schedule AS name, IFNULL(r.lease_until, s.lease_until) AS lease_until FROM tickwork_runs AS r
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND (s.lease_run = r.id OR r.lease_until IS NOT NULL)
    WHERE r.id >= 'z' || printf('%012x', CAST(?2 AS INTEGER)) AND r.id < 'z' || printf('%012x', (SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1) + 1)
      AND r.outcome = 'running'
    UNION ALL
    SELECT r.id, r.schedule, s.lease_until FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND s.lease_run = r.id
    WHERE r.id < 'z' AND r.tick_at >= CAST(?2 AS INTEGER) AND r.tick_at <= (SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1) AND r.outcome = 'running') WHERE lease_until <= ?1), d AS (SELECT key AS name, json_extract(value, '$[0]') AS attempts,
           json_extract(value, '$[1]') AS pause, json_extract(value, '$[2]') AS ceiling,
           json_extract(value, '$[3]') AS jitter FROM json_each(?3)),
  seed_steps(name, k, seed) AS (
    SELECT DISTINCT name, 0, 0 FROM lapsed
    UNION ALL
    SELECT name, k + 1, (seed * 65599 + unicode(substr(name, k + 1, 1))) % 1000003 FROM seed_steps
    WHERE k < length(name)),
  seeds(name, seed) AS (SELECT name, seed FROM seed_steps WHERE k = length(name))
UPDATE tickwork_schedules AS s
SET retry_next = s.due_at, retry_attempt = IFNULL(r.attempt, 1) + 1, retry_due = r.due_at,
    retry_at = r.at, retry_n = r.n, retry_i = r.i, retry_dst = r.dst,
    due_at = MIN(s.due_at, ?4 + MIN(IFNULL(d.pause, json_extract(s.timing, '$.retry_pause_ms')) * (1 << (IFNULL(r.attempt, 1) - 1)), IFNULL(IFNULL(d.ceiling, json_extract(s.timing, '$.retry_ceiling_ms')), IFNULL(d.pause, json_extract(s.timing, '$.retry_pause_ms')) * (1 << (IFNULL(r.attempt, 1) - 1))))
                               + (h.seed + CAST(r.due_at AS INTEGER) / 1000 % 1000003 * 7919 + IFNULL(r.attempt, 1) * 104729) % 1000003 * (h.seed + CAST(r.due_at AS INTEGER) / 1000 % 1000003 * 7919 + IFNULL(r.attempt, 1) * 104729) % 1000003 % 1000003 * (CAST(IFNULL(IFNULL(d.jitter, json_extract(s.timing, '$.retry_jitter_ms')), 0) AS INTEGER) / 1000) / 1000003 * 1000)
FROM lapsed AS x JOIN tickwork_runs AS r ON r.id = x.run JOIN seeds AS h ON h.name = x.name
LEFT JOIN d ON d.name = r.schedule
WHERE s.name = x.name AND (CASE WHEN r.lease_until IS NULL THEN s.lease_run = x.run ELSE s.retry_attempt IS NULL END) AND r.by_hand IS NULL AND r.backfill IS NULL AND s.removed_at IS NULL
  AND IFNULL(r.attempt, 1) <= IFNULL(d.attempts, IFNULL(json_extract(s.timing, '$.retry_attempts'), 0))
