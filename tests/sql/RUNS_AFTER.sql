
SELECT d.value AS deployed, r.schedule, r.due_at, r.outcome, r.code
FROM json_each(?1) AS d JOIN tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    ON r.id < 'z' AND r.tick_at >= d.value AND r.tick_at <= d.value + ?2
WHERE r.outcome = 'skipped' OR r.covers IS NOT NULL
ORDER BY r.tick_at LIMIT CAST(?3 AS INTEGER)
