
UPDATE tickwork_deliveries
SET state = 'pending', next_attempt_at = ?2, lease_run = NULL, lease_until = NULL, updated_at = ?2
WHERE id = ?1 AND state IN ('failed', 'outcome_unknown', 'pending') RETURNING id
