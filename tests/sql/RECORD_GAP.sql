
INSERT INTO tickwork_gaps (to_tick, from_tick, recorded_at) VALUES (?1, ?2, ?3)
ON CONFLICT (to_tick) DO NOTHING
