
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS due, json_extract(value, '$[2]') AS next_due, json_extract(value, '$[3]') AS run, json_extract(value, '$[4]') AS at, json_extract(value, '$[5]') AS n, json_extract(value, '$[6]') AS i, json_extract(value, '$[7]') AS dst, json_extract(value, '$[8]') AS moment, json_extract(value, '$[9]') AS reason, json_extract(value, '$[10]') AS detail, json_extract(value, '$[11]') AS requested, json_extract(value, '$[12]') AS by_hand, json_extract(value, '$[13]') AS trace, json_extract(value, '$[14]') AS for_due, json_extract(value, '$[15]') AS attempt, json_extract(value, '$[16]') AS retrying FROM json_each(?1))
SELECT j.run AS run,
       (SELECT lease_run FROM tickwork_schedules WHERE name = j.name) IS j.run
           OR EXISTS (SELECT 1 FROM tickwork_runs WHERE id = j.run AND lease_until IS NOT NULL) AS leased,
       EXISTS (SELECT 1 FROM tickwork_runs WHERE id = j.run) AS recorded,
       EXISTS (SELECT 1 FROM tickwork_runs WHERE id = j.run AND code = 'coalesced') AS coalesced
FROM j
