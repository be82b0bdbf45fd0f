
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?2, ?3, ?4, '{verb}', name, {detail} FROM tickwork_schedules WHERE name = ?1 AND {when}
