
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS at, json_extract(value, '$[2]') AS n, json_extract(value, '$[3]') AS i, json_extract(value, '$[4]') AS dst, json_extract(value, '$[5]') AS run, json_extract(value, '$[6]') AS backfill, json_extract(value, '$[7]') AS who, json_extract(value, '$[8]') AS trace, json_extract(value, '$[9]') AS next FROM json_each(?1))
UPDATE tickwork_schedules AS s SET lease_run = j.run, lease_until = ?2
FROM j
WHERE s.name = j.name AND j.run IS NOT NULL AND s.paused = 0 AND (s.removed_at IS NULL OR s.ended = 'done') AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running') AND NOT EXISTS (SELECT 1 FROM tickwork_runs AS l INDEXED BY tickwork_runs_beside WHERE l.schedule = s.name AND l.outcome = 'running' AND l.lease_until IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM tickwork_app WHERE id = 1 AND lapse_clear >= ?2)
  AND EXISTS (SELECT 1 FROM tickwork_backfills AS b WHERE b.id = j.backfill AND b.state = 'pending')
  AND NOT (
EXISTS (SELECT 1 FROM tickwork_backfilled AS x WHERE x.schedule = j.name AND x.at = j.at)
OR EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.schedule = j.name AND r.due_at = j.at
           AND r.covers_last IS NULL AND r.outcome = 'succeeded')
OR EXISTS (SELECT 1 FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_last_covered
           WHERE r.schedule = j.name AND r.covers_last = j.at AND r.outcome = 'succeeded')
)
RETURNING lease_run AS run
