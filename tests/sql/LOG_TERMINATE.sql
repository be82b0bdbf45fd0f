
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?2, ?3, ?4, 'terminate', w.schedule, 'the Workflow ' || w.binding || ' instance of run ' || w.run
FROM tickwork_workflow_runs AS w JOIN tickwork_runs AS r ON r.id = w.run
WHERE w.run = ?1 AND r.outcome = 'running' AND w.terminate_by IS NULL
