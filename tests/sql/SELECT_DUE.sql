
SELECT s.*, EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running') AS lease_open FROM (
    SELECT * FROM (SELECT *, NULL AS place FROM tickwork_schedules
                   WHERE removed_at IS NULL AND runs_at <= ?1 AND concurrency_key IS NULL
                   ORDER BY runs_at LIMIT CAST(?2 AS INTEGER))
    UNION ALL
    SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY concurrency_key ORDER BY runs_at, name) AS place
                   FROM tickwork_schedules INDEXED BY tickwork_schedules_keyed_by_due
                   WHERE concurrency_key IS NOT NULL AND removed_at IS NULL AND runs_at <= ?1)
    WHERE place <= concurrency_limit
    UNION ALL
    SELECT *, NULL AS place FROM tickwork_schedules INDEXED BY tickwork_schedules_by_hand
    WHERE run_requested_at IS NOT NULL AND removed_at IS NULL AND runs_at > ?1
) AS s ORDER BY s.runs_at LIMIT CAST(?2 AS INTEGER)
