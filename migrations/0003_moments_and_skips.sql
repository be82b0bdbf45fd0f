-- tickwork: a skip commits with its record; calendars of one action claim each moment once;
-- a schedule that missed ticks the others got was absent from the app.

ALTER TABLE tickwork_schedules ADD COLUMN prev_tick INTEGER;  -- the tick before last_tick
ALTER TABLE tickwork_schedules ADD COLUMN skip_run TEXT;      -- the record of its latest skip

-- One call per (action, moment) among calendars of one action: the run that made it.
CREATE TABLE tickwork_moments (
    action TEXT NOT NULL,
    at     INTEGER NOT NULL,
    run    TEXT NOT NULL,
    PRIMARY KEY (action, at)
);
