
SELECT COUNT(*) AS under_way FROM tickwork_schedules AS o INDEXED BY tickwork_schedules_by_concurrency
WHERE o.concurrency_key = (SELECT concurrency_key FROM tickwork_schedules WHERE name = ?1) AND o.lease_until > ?2 AND EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = o.lease_run AND l.outcome = 'running')
