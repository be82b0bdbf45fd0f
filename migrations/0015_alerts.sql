-- tickwork: failures announced. Each schedule keeps whether it is failing, so that the end of a
-- run that changes it (succeeded -> failed, failed -> succeeded) emits one alert, decided by the
-- conditional update that marks it; a gap in the ticks keeps the alert that announced it.
ALTER TABLE tickwork_schedules ADD COLUMN failing_since INTEGER;  -- the end of the first failed run of those since the last success; NULL while it succeeds
ALTER TABLE tickwork_schedules ADD COLUMN alert_run TEXT;         -- the run whose end last changed it
ALTER TABLE tickwork_schedules ADD COLUMN alert_since INTEGER;    -- since when it was failing (or succeeding), as that alert says
ALTER TABLE tickwork_gaps ADD COLUMN alert TEXT;                  -- the event that announced the gap
