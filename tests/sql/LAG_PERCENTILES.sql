
WITH lags AS MATERIALIZED (
    SELECT r.schedule AS schedule, max(r.started_at - r.due_at, 0) AS lag
    FROM tickwork_runs AS r
    WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1 AND r.started_at IS NOT NULL AND r.by_hand IS NULL AND r.backfill IS NULL
      AND coalesce(r.attempt, 1) = 1
    ORDER BY r.id DESC LIMIT CAST(?2 AS INTEGER)
), ranked AS (
    SELECT schedule, lag, row_number() OVER (PARTITION BY schedule ORDER BY lag) AS k,
           count(*) OVER (PARTITION BY schedule) AS n
    FROM lags
    UNION ALL
    SELECT NULL, lag, row_number() OVER (ORDER BY lag), count(*) OVER () FROM lags
)
SELECT schedule, max(n) AS runs,
       min(CASE WHEN k * 100 >= n * 50 THEN lag END) AS p50,
       min(CASE WHEN k * 100 >= n * 95 THEN lag END) AS p95,
       min(CASE WHEN k * 100 >= n * 99 THEN lag END) AS p99,
       max(lag) AS worst
FROM ranked GROUP BY schedule ORDER BY schedule IS NOT NULL, schedule
