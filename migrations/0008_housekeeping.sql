-- tickwork: housekeeping, the tick's last step, deletes what is no longer needed, under a lease
-- of its own on the app's row, at most once an hour once a pass completes.

ALTER TABLE tickwork_app ADD COLUMN housekeeping_owner TEXT;     -- the tick doing a pass
ALTER TABLE tickwork_app ADD COLUMN housekeeping_until INTEGER;  -- when a crashed owner loses it
ALTER TABLE tickwork_app ADD COLUMN housekeeping_done_at INTEGER;  -- when the last pass completed
ALTER TABLE tickwork_app ADD COLUMN housekeeping_next INTEGER NOT NULL DEFAULT 0;  -- where it carries on

-- What a pass looks up, oldest first.
CREATE INDEX tickwork_runs_by_tick ON tickwork_runs (tick_at);
CREATE INDEX tickwork_events_by_emitted ON tickwork_events (emitted_at);
CREATE INDEX tickwork_operator_log_by_at ON tickwork_operator_log (at);
CREATE INDEX tickwork_schedules_ended ON tickwork_schedules (removed_at)
WHERE action IS NOT NULL AND removed_at IS NOT NULL;
