
SELECT s.*, EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running') AS lease_open FROM tickwork_schedules AS s
WHERE s.name IN (SELECT value FROM json_each(?1))
