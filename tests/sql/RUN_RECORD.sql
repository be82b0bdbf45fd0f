
SELECT r.*, s.form AS form, s.label AS label, s.action AS action, s.removed_at AS removed_at, s.ended AS ended,
       s.paused AS paused, s.name IS NOT NULL AS schedule_kept, ((s.retry_attempt IS NOT NULL AND (s.retry_next IS NULL OR s.due_at < s.retry_next)) AND s.retry_due IS r.due_at) AS retry_pending,
       s.concurrency_key AS concurrency_key, s.concurrency_limit AS concurrency_limit,
       w.binding AS workflow_binding, w.terminate_by AS terminate_by
FROM tickwork_runs AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
LEFT JOIN tickwork_workflow_runs AS w ON w.run = r.id WHERE r.id = ?1
