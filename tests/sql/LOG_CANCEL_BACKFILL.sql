
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?2, ?3, ?4, 'cancel_backfill', schedule, 'backfill ' || id FROM tickwork_backfills
WHERE id = ?1 AND state = 'pending'
