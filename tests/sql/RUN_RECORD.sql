
SELECT r.*, s.form AS form, s.label AS label, s.action AS action, s.removed_at AS removed_at, s.ended AS ended,
       s.paused AS paused, s.name IS NOT NULL AS schedule_kept
FROM tickwork_runs AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule WHERE r.id = ?1
