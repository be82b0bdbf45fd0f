
EXISTS (SELECT 1 FROM tickwork_backfilled AS x WHERE x.schedule = j.name AND x.at = j.at)
OR EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.schedule = j.name AND r.due_at = j.at
           AND r.covers_last IS NULL AND r.outcome = 'succeeded')
OR EXISTS (SELECT 1 FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_last_covered
           WHERE r.schedule = j.name AND r.covers_last = j.at AND r.outcome = 'succeeded')
