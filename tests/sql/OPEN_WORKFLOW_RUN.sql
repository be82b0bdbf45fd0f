
INSERT INTO tickwork_workflow_runs (run, schedule, binding, started, until_at, claim, check_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (run) DO NOTHING
