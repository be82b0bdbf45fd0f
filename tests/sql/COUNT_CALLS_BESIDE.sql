
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS run,
                  json_extract(value, '$[2]') AS ended, json_extract(value, '$[3]') AS times FROM json_each(?1))
UPDATE tickwork_schedules AS s SET calls_made = IFNULL(s.calls_made, 0) + 1
FROM j WHERE s.name = j.name AND s.ended IS NULL
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = j.run AND r.outcome = 'running')
