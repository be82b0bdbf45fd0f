
DELETE FROM tickwork_schedules WHERE name IN (
    SELECT name FROM tickwork_schedules AS s
    WHERE action IS NOT NULL AND removed_at IS NOT NULL AND removed_at < ?1 AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running')
      AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS l INDEXED BY tickwork_runs_beside WHERE l.schedule = s.name AND l.outcome = 'running' AND l.lease_until IS NOT NULL)
    ORDER BY removed_at LIMIT 1000)
