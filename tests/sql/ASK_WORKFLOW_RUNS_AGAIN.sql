
UPDATE tickwork_workflow_runs SET check_at = ?2 WHERE run IN (SELECT value FROM json_each(?1))
