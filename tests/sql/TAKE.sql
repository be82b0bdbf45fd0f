
UPDATE tickwork_app SET housekeeping_owner = ?1, housekeeping_until = ?2
WHERE id = 1 AND (housekeeping_owner IS NULL OR housekeeping_until <= ?3)
  AND (housekeeping_done_at IS NULL OR housekeeping_done_at <= ?3 - 3600000)
RETURNING housekeeping_next
