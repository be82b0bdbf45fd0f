
WITH j AS (SELECT json_extract(value, '$[0]') AS run, json_extract(value, '$[1]') AS name, json_extract(value, '$[2]') AS due, json_extract(value, '$[3]') AS at, json_extract(value, '$[4]') AS count, json_extract(value, '$[5]') AS first, json_extract(value, '$[6]') AS last, json_extract(value, '$[7]') AS more FROM json_each(?1))
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome, code, detail, at,
    covers, covers_first, covers_last, covers_more, attempt)
SELECT j.run, j.name, j.due, ?2, 'skipped', 'undeclared', 'the calendar was not declared when these occurrences came due (a deploy had removed it); declared again, it owes nothing from then: `tickwork backfill` makes them', j.at,
       j.count, j.first, j.last, j.more, 1
FROM j WHERE true
ON CONFLICT DO NOTHING
