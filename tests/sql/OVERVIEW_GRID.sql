
WITH recent AS (
    SELECT schedule, max(outcome = 'failed') AS failing, max(tick_at) AS latest FROM (
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM tickwork_runs AS r WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1
               ORDER BY r.id DESC LIMIT CAST(?2 AS INTEGER))
UNION ALL
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick WHERE r.id < 'z' AND r.tick_at >= ?1
               ORDER BY r.tick_at DESC LIMIT CAST(?2 AS INTEGER)))
    GROUP BY schedule ORDER BY failing DESC, latest DESC, schedule LIMIT CAST(?3 AS INTEGER))
SELECT c.failing, c.latest, s.label AS label, s.action AS action, r.id, r.schedule, r.due_at, r.tick_at,
       r.outcome, r.code, r.attempt, r.covers, r.covers_first, r.covers_last, r.covers_more
FROM recent AS c
JOIN tickwork_runs AS r ON r.schedule = c.schedule AND r.due_at >= coalesce(
    (SELECT due_at FROM tickwork_runs WHERE schedule = c.schedule ORDER BY due_at DESC
     LIMIT 1 OFFSET CAST(?4 AS INTEGER) - 1), -1)
LEFT JOIN tickwork_schedules AS s ON s.name = c.schedule
ORDER BY c.failing DESC, c.latest DESC, c.schedule, r.due_at
