-- tickwork: a failed run tried again for the same due time. A pending retry is the row's due
-- time like any other; the call it makes again is kept beside it, and the due time it put aside,
-- which supersedes the retry where it comes first.
ALTER TABLE tickwork_schedules ADD COLUMN retry_attempt INTEGER;  -- the attempt the retry makes (2 the first)
ALTER TABLE tickwork_schedules ADD COLUMN retry_due INTEGER;      -- the due time it is for
ALTER TABLE tickwork_schedules ADD COLUMN retry_at INTEGER;       -- its call: `at`, `n`, `i`, `dst`
ALTER TABLE tickwork_schedules ADD COLUMN retry_n INTEGER;
ALTER TABLE tickwork_schedules ADD COLUMN retry_i INTEGER;
ALTER TABLE tickwork_schedules ADD COLUMN retry_dst TEXT;
ALTER TABLE tickwork_schedules ADD COLUMN retry_next INTEGER;     -- the next due time, put aside
ALTER TABLE tickwork_runs ADD COLUMN attempt INTEGER;             -- 1 the first run; NULL before 0013
