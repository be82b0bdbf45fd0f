-- tickwork: calendars and pulses beside `every:` schedules.

-- What the schedule's timing is ("every 900000", "calendar 0 9 * * 1 | Europe/Berlin | ...",
-- "pulse 300000/1"): a changed form moves the due time, so nothing stored for the old form is
-- called. NULL on rows written before this migration, which were all `every:` schedules.
ALTER TABLE tickwork_schedules ADD COLUMN form TEXT;

ALTER TABLE tickwork_runs ADD COLUMN at INTEGER;   -- a calendar's moment, as the action read it
ALTER TABLE tickwork_runs ADD COLUMN n INTEGER;    -- a pulse's intervals
ALTER TABLE tickwork_runs ADD COLUMN i INTEGER;    -- the share this pulse call was for
ALTER TABLE tickwork_runs ADD COLUMN dst TEXT;     -- the daylight-saving rule that placed the call
