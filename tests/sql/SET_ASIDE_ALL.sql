
UPDATE tickwork_deliveries
SET state = '{state}', next_attempt_at = NULL, lease_run = NULL, lease_until = NULL, updated_at = ?11
WHERE id IN (SELECT id FROM ({shown})) AND {when} RETURNING id
