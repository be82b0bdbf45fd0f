
INSERT INTO tickwork_operator_log (id, at, who, verb, delivery, detail)
SELECT ?2, ?3, ?4, '{verb}', id, 'from ' || state FROM tickwork_deliveries WHERE id = ?1 AND {when}
