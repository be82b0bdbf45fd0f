
WITH j AS (SELECT json_extract(value, '$[0]') AS name, json_extract(value, '$[1]') AS at, json_extract(value, '$[2]') AS n, json_extract(value, '$[3]') AS i, json_extract(value, '$[4]') AS dst, json_extract(value, '$[5]') AS run, json_extract(value, '$[6]') AS backfill, json_extract(value, '$[7]') AS who, json_extract(value, '$[8]') AS trace, json_extract(value, '$[9]') AS next FROM json_each(?1))
UPDATE tickwork_backfills AS b
SET next_at = MAX(b.next_at, j.next),
    made = b.made + (j.run IS NOT NULL),
    state = CASE WHEN MAX(b.next_at, j.next) > b.to_at THEN 'done' ELSE b.state END,
    ended_at = CASE WHEN MAX(b.next_at, j.next) > b.to_at THEN ?2 ELSE b.ended_at END
FROM j
WHERE b.id = j.backfill AND b.state = 'pending'
  AND (j.run IS NULL OR EXISTS (
      SELECT 1 FROM tickwork_backfilled AS x WHERE x.schedule = j.name AND x.at = j.at AND x.run = j.run))
