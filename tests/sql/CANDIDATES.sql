
SELECT r.id, r.schedule, r.due_at, r.tick_at, r.by_hand, r.outcome, s.removed_at, s.ended, s.paused, s.retry_attempt,
       s.due_at AS schedule_due, ((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) AND s.retry_due IS r.due_at) AS retry_pending,
       (SELECT max(o.outcome = 'succeeded') FROM tickwork_runs AS o WHERE o.schedule = r.schedule
        AND o.due_at = r.due_at) AS succeeded,
       (SELECT max(o.outcome = 'running') FROM tickwork_runs AS o WHERE o.schedule = r.schedule
        AND o.due_at = r.due_at) AS running,
       (SELECT b.id FROM tickwork_backfills AS b WHERE b.schedule = r.schedule AND b.state = 'pending'
        AND b.remake_of IS NOT NULL AND b.from_at = r.due_at) AS waiting, s.name IS NOT NULL AND r.outcome = 'failed' AND (s.removed_at IS NULL OR s.ended = 'done')
  AND NOT (r.by_hand IS NOT NULL AND r.due_at > r.tick_at)
  AND NOT ((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) AND s.retry_due IS r.due_at)
  AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS o WHERE o.schedule = r.schedule AND o.due_at = r.due_at
                  AND o.outcome IN ('succeeded', 'running'))
  AND NOT EXISTS (SELECT 1 FROM tickwork_backfills AS b WHERE b.schedule = r.schedule AND b.state = 'pending'
                  AND b.remake_of IS NOT NULL AND b.from_at = r.due_at) AS remakable
FROM (SELECT id, tick_at, row_number() OVER (PARTITION BY schedule, due_at ORDER BY tick_at DESC, id DESC) AS k
      FROM (SELECT * FROM (SELECT * FROM (SELECT w.*, s.form AS form, s.label AS label, s.action AS action
FROM (SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_failed
WHERE r.outcome = 'failed' AND r.tick_at >= ?1 AND (r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?5 AS INTEGER)) AS w LEFT JOIN tickwork_schedules AS s ON s.name = w.schedule
WHERE 
  (?7 IS NULL OR w.outcome = ?7) AND (?8 IS NULL OR w.schedule GLOB ?8) AND (?9 IS NULL OR s.label GLOB ?9)
  AND (?10 IS NULL OR IFNULL(s.action, w.schedule) GLOB ?10) AND (?11 IS NULL OR w.trace = ?11)
  AND (?12 IS NULL OR instr(lower(IFNULL(w.code, '') || ' ' || IFNULL(w.detail, '')), ?12) > 0) LIMIT CAST(?6 AS INTEGER)))
ORDER BY tick_at DESC, id DESC)) AS f
JOIN tickwork_runs AS r ON r.id = f.id LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
WHERE f.k = 1 ORDER BY f.tick_at DESC, f.id DESC LIMIT CAST(?13 AS INTEGER)
