
SELECT sum(outcome = 'succeeded') AS succeeded, sum(outcome = 'failed') AS failed,
       sum(outcome = 'skipped') AS skipped, count(*) AS n, min(tick_at) AS first_tick
FROM (
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM tickwork_runs AS r WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1
               ORDER BY r.id DESC LIMIT CAST(?2 AS INTEGER))
UNION ALL
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick WHERE r.id < 'z' AND r.tick_at >= ?1
               ORDER BY r.tick_at DESC LIMIT CAST(?2 AS INTEGER)))
