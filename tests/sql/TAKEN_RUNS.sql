SELECT schedule, run, due_at FROM (
SELECT f.schedule, f.id AS run, f.due_at, f.tick_at, f.failed, s.name IS NOT NULL AS known,
       s.removed_at, s.paused, s.run_requested_at, s.run_requested_by, s.name IS NOT NULL AND s.removed_at IS NULL AND paused = 0 AND run_requested_at IS NULL AS runnable
FROM (SELECT schedule, id, due_at, tick_at, count(*) OVER (PARTITION BY schedule) AS failed,
             row_number() OVER (PARTITION BY schedule ORDER BY tick_at DESC, id DESC) AS k
      FROM (SELECT * FROM (SELECT * FROM (SELECT w.*, s.form AS form, s.label AS label, s.action AS action
FROM (SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_failed
WHERE r.outcome = 'failed' AND r.tick_at >= ?1 AND (r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?5 AS INTEGER)) AS w LEFT JOIN tickwork_schedules AS s ON s.name = w.schedule
WHERE 
  (?7 IS NULL OR w.outcome = ?7) AND (?8 IS NULL OR w.schedule GLOB ?8) AND (?9 IS NULL OR s.label GLOB ?9)
  AND (?10 IS NULL OR IFNULL(s.action, w.schedule) GLOB ?10) AND (?11 IS NULL OR w.trace = ?11)
  AND (?12 IS NULL OR instr(lower(IFNULL(w.code, '') || ' ' || IFNULL(w.detail, '')), ?12) > 0) LIMIT CAST(?6 AS INTEGER)))
ORDER BY tick_at DESC, id DESC)) AS f
LEFT JOIN tickwork_schedules AS s ON s.name = f.schedule
WHERE f.k = 1 ORDER BY f.tick_at DESC, f.id DESC LIMIT CAST(?13 AS INTEGER)
) WHERE runnable