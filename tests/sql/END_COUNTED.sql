
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS run,
                  json_extract(value, '$[2]') AS ended, json_extract(value, '$[3]') AS times FROM json_each(?1))
UPDATE tickwork_schedules AS s SET ended = 'made_its_calls', removed_at = j.ended
FROM j WHERE s.name = j.name AND s.ended IS NULL AND s.calls_made >= j.times
