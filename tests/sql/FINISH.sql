
UPDATE tickwork_app SET housekeeping_owner = NULL, housekeeping_until = NULL,
    housekeeping_done_at = CASE WHEN ?2 THEN ?3 ELSE housekeeping_done_at END,
    housekeeping_next = CASE WHEN ?2 THEN 0 ELSE ?4 END
WHERE id = 1 AND housekeeping_owner = ?1
