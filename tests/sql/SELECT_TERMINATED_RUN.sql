
SELECT r.id, r.schedule, r.outcome, r.due_at, w.binding, w.terminate_by FROM tickwork_runs AS r
LEFT JOIN tickwork_workflow_runs AS w ON w.run = r.id WHERE r.id = ?1
