
SELECT f.*, s.label AS label FROM (
    SELECT schedule, count(*) AS failures, max(tick_at) AS last_failed, id AS last_run FROM (
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM tickwork_runs AS r WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1
               ORDER BY r.id DESC LIMIT CAST(?2 AS INTEGER))
UNION ALL
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick WHERE r.id < 'z' AND r.tick_at >= ?1
               ORDER BY r.tick_at DESC LIMIT CAST(?2 AS INTEGER)))
    WHERE outcome = 'failed'
    GROUP BY schedule ORDER BY last_failed DESC LIMIT CAST(?3 AS INTEGER)) AS f
LEFT JOIN tickwork_schedules AS s ON s.name = f.schedule
ORDER BY f.last_failed DESC
