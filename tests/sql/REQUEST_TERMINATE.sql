
UPDATE tickwork_workflow_runs SET terminate_by = ?4, check_at = 0
WHERE run IN (SELECT w.run FROM tickwork_workflow_runs AS w JOIN tickwork_runs AS r ON r.id = w.run
WHERE w.run = ?1 AND r.outcome = 'running' AND w.terminate_by IS NULL) RETURNING run
