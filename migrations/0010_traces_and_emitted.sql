-- tickwork: each run in a trace of its own, carried by what it emits to the consumers that handle
-- it; and what a run emitted, kept on its record for as long as the record is.
ALTER TABLE tickwork_runs ADD COLUMN trace TEXT;       -- the run's trace; NULL for a skip
ALTER TABLE tickwork_runs ADD COLUMN events TEXT;      -- what it emitted: JSON {"event": count}
ALTER TABLE tickwork_events ADD COLUMN trace TEXT;     -- the trace of what emitted it
ALTER TABLE tickwork_handled ADD COLUMN trace TEXT;    -- the trace the consumer's call continued
