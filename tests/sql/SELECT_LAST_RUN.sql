
SELECT * FROM tickwork_runs WHERE schedule = ?1 ORDER BY due_at DESC, tick_at DESC LIMIT 1
