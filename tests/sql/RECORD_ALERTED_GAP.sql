
INSERT INTO tickwork_gaps (to_tick, from_tick, recorded_at, alert) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (to_tick) DO NOTHING
