
UPDATE tickwork_backfills SET state = 'cancelled', ended_at = ?2 WHERE id = ?1 AND state = 'pending'
RETURNING id
