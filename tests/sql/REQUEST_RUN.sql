
UPDATE tickwork_schedules SET run_requested_at = ?2, run_requested_by = ?3
WHERE name = ?1 AND removed_at IS NULL AND paused = 0 AND run_requested_at IS NULL RETURNING name
