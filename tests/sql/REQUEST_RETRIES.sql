
UPDATE tickwork_schedules SET run_requested_at = ?14, run_requested_by = ?15
WHERE name IN (SELECT schedule FROM (SELECT schedule, run, due_at FROM (
SELECT f.schedule, f.id AS run, f.due_at, f.tick_at, f.failed, s.name IS NOT NULL AS known,
       s.removed_at, s.paused, s.run_requested_at, s.run_requested_by, s.name IS NOT NULL AND s.removed_at IS NULL AND paused = 0 AND run_requested_at IS NULL AS runnable
FROM (SELECT schedule, id, due_at, tick_at, count(*) OVER (PARTITION BY schedule) AS failed,
             row_number() OVER (PARTITION BY schedule ORDER BY tick_at DESC, id DESC) AS k
      FROM (WITH new AS MATERIALIZED (SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_failed
WHERE r.outcome = 'failed' AND r.tick_at >= ?1 AND (r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?5 AS INTEGER)), old AS MATERIALIZED (SELECT * FROM tickwork_runs WHERE id = ''),
stop AS MATERIALIZED (SELECT tick_at, id FROM (
    SELECT * FROM (SELECT tick_at, id FROM new ORDER BY tick_at DESC, id DESC LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1)
    UNION ALL
    SELECT * FROM (SELECT tick_at, id FROM old ORDER BY tick_at DESC, id DESC LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1))
  ORDER BY tick_at DESC, id DESC LIMIT 1)
SELECT r.*, s.form AS form, s.label AS label, s.action AS action
FROM (SELECT * FROM new UNION ALL SELECT * FROM old) AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
LEFT JOIN stop ON (r.tick_at, r.id) < (stop.tick_at, stop.id)
WHERE stop.id IS NULL AND 
  (?7 IS NULL OR r.outcome = ?7) AND (?8 IS NULL OR r.schedule GLOB ?8) AND (?9 IS NULL OR s.label GLOB ?9)
  AND (?10 IS NULL OR IFNULL(s.action, r.schedule) GLOB ?10) AND (?11 IS NULL OR r.trace = ?11)
  AND (?12 IS NULL OR instr(lower(IFNULL(r.code, '') || ' ' || IFNULL(r.detail, '')), ?12) > 0)
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?6 AS INTEGER)
)) AS f
LEFT JOIN tickwork_schedules AS s ON s.name = f.schedule
WHERE f.k = 1 ORDER BY f.tick_at DESC, f.id DESC LIMIT CAST(?13 AS INTEGER)
) WHERE runnable)) AND removed_at IS NULL AND paused = 0 AND run_requested_at IS NULL RETURNING name
