-- tickwork: what an operator does, logged; runs asked for by hand; the gaps when ticks stopped.

-- Every change an operator makes writes one row here in the same batch as the change.
CREATE TABLE tickwork_operator_log (
    id       TEXT PRIMARY KEY,
    at       INTEGER NOT NULL,
    who      TEXT NOT NULL,        -- the operator, as the command was told or found it
    verb     TEXT NOT NULL,        -- pause, resume, run, retry, dismiss, cancel
    schedule TEXT,                 -- the schedule acted on, or
    delivery TEXT,                 -- the delivery acted on
    detail   TEXT
);
CREATE INDEX tickwork_operator_log_by_schedule ON tickwork_operator_log (schedule, at) WHERE schedule IS NOT NULL;
CREATE INDEX tickwork_operator_log_by_delivery ON tickwork_operator_log (delivery, at) WHERE delivery IS NOT NULL;

-- A run asked for by hand: made by the next tick's first step under the schedule's lease,
-- moving no grid. The run record says who asked.
ALTER TABLE tickwork_schedules ADD COLUMN run_requested_at INTEGER;
ALTER TABLE tickwork_schedules ADD COLUMN run_requested_by TEXT;
CREATE INDEX tickwork_schedules_by_hand ON tickwork_schedules (run_requested_at)
WHERE run_requested_at IS NOT NULL;
ALTER TABLE tickwork_runs ADD COLUMN by_hand TEXT;

-- A tick that found the app's previous tick longer ago than the threshold records the gap.
CREATE TABLE tickwork_gaps (
    to_tick     INTEGER PRIMARY KEY,   -- the tick that found the gap
    from_tick   INTEGER NOT NULL,      -- the app's tick before it
    recorded_at INTEGER NOT NULL
);
