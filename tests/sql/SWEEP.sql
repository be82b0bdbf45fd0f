
UPDATE tickwork_deliveries
SET state = 'running', lease_run = ?2, lease_until = ?3, attempts = attempts + 1, updated_at = ?1
WHERE id IN (
    SELECT id FROM (
        SELECT id, next_attempt_at AS since FROM tickwork_deliveries
        WHERE state IN ('pending', 'outcome_unknown') AND next_attempt_at <= ?1
        UNION ALL
        SELECT id, lease_until AS since FROM tickwork_deliveries
        WHERE state = 'running' AND lease_until <= ?1
    ) ORDER BY since LIMIT CAST(?4 AS INTEGER))
  AND (state IN ('pending', 'outcome_unknown') OR lease_until <= ?1)
RETURNING id, queue, attempts,
  (SELECT name FROM tickwork_events WHERE id = event) AS name,
  (SELECT body FROM tickwork_events WHERE id = event) AS body,
  (SELECT trace FROM tickwork_events WHERE id = event) AS trace
