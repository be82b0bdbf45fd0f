
UPDATE tickwork_deliveries
SET state = '{state}', next_attempt_at = NULL, lease_run = NULL, lease_until = NULL, updated_at = ?2
WHERE id = ?1 AND {when} RETURNING id
