
INSERT INTO tickwork_operator_log (id, at, who, verb, delivery, detail)
SELECT lower(hex(randomblob(16))), ?11, ?12, '{verb}', id, 'from ' || state || ' (in bulk)' FROM ({shown})
