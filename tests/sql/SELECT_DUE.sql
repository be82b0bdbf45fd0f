
SELECT s.*, EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running') AS lease_open FROM (
    SELECT u.*, ROW_NUMBER() OVER (PARTITION BY u.concurrency_key ORDER BY u.due_at, u.name) AS place FROM (
        SELECT * FROM tickwork_schedules WHERE removed_at IS NULL AND due_at <= ?1
        UNION ALL
        SELECT * FROM tickwork_schedules INDEXED BY tickwork_schedules_by_hand
        WHERE run_requested_at IS NOT NULL AND removed_at IS NULL AND due_at > ?1
    ) AS u
) AS s WHERE s.concurrency_key IS NULL OR s.place <= s.concurrency_limit ORDER BY s.due_at LIMIT CAST(?2 AS INTEGER)
