
UPDATE tickwork_deliveries
SET last_error = ?2, updated_at = ?3,
    state = CASE WHEN ?4 THEN 'failed' ELSE state END,
    lease_until = CASE WHEN ?4 THEN NULL ELSE ?5 END,
    lease_run = CASE WHEN ?4 THEN NULL ELSE lease_run END
WHERE id = ?1 AND state IN ('running', 'pending', 'outcome_unknown')
