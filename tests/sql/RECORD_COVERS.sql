
WITH j AS (SELECT json_extract(value, '$[0]') AS run, json_extract(value, '$[1]') AS count, json_extract(value, '$[2]') AS first, json_extract(value, '$[3]') AS last, json_extract(value, '$[4]') AS more FROM json_each(?1))
UPDATE tickwork_runs AS r SET covers = j.count, covers_first = j.first, covers_last = j.last, covers_more = j.more
FROM j WHERE r.id = j.run
