
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?7, ?3, ?4, 'backfill', name,
       'backfill ' || ?2 || ' from ' || strftime('%Y-%m-%dT%H:%M:%fZ', ?5 / 1000.0, 'unixepoch') || ' to ' || strftime('%Y-%m-%dT%H:%M:%fZ', ?6 / 1000.0, 'unixepoch') FROM tickwork_schedules WHERE name = ?1 AND (removed_at IS NULL OR ended = 'done')
