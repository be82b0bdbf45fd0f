s.due_at = j.due AND s.paused = 0 AND s.removed_at IS NULL
  AND NOT EXISTS (SELECT 1 FROM tickwork_app WHERE id = 1 AND lapse_clear >= ?2)
  AND (j.requested IS NULL OR s.run_requested_at = j.requested) AND (s.retry_attempt IS j.retrying)