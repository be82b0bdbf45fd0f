
SELECT s.*, EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running') AS lease_open FROM (
    SELECT * FROM tickwork_schedules WHERE removed_at IS NULL AND runs_at <= ?1
    UNION ALL
    SELECT * FROM tickwork_schedules INDEXED BY tickwork_schedules_by_hand
    WHERE run_requested_at IS NOT NULL AND removed_at IS NULL AND runs_at > ?1
) AS s ORDER BY s.runs_at LIMIT CAST(?2 AS INTEGER)
