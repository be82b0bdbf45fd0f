
SELECT w.run, w.schedule, w.binding, w.started, w.until_at, w.claim, w.terminate_by, r.trace, r.outcome,
       r.by_hand, r.backfill, s.action, s.timing
FROM tickwork_workflow_runs AS w INDEXED BY tickwork_workflow_runs_by_check
JOIN tickwork_runs AS r ON r.id = w.run
LEFT JOIN tickwork_schedules AS s ON s.name = w.schedule
WHERE w.check_at <= ?1 ORDER BY w.check_at LIMIT ?2
