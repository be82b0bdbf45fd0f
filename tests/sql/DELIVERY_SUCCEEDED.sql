
UPDATE tickwork_deliveries
SET state = 'succeeded', lease_run = NULL, lease_until = NULL, last_error = NULL, updated_at = ?2
WHERE id = ?1 AND state NOT IN ('dismissed', 'cancelled')
