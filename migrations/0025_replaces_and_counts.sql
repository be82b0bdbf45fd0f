-- Issue 25: a handed-over schedule changed in place, and one that makes a number of calls. The
-- schedule a replace ended names the one that replaced it, and that one the one it replaces, so
-- `why`, `history` and the console link the two; `calls_made` counts the calls of a schedule
-- handed over with `times=`, in the batch that records each call's end.
ALTER TABLE tickwork_schedules ADD COLUMN replaced_by TEXT;
ALTER TABLE tickwork_schedules ADD COLUMN replaces TEXT;
ALTER TABLE tickwork_schedules ADD COLUMN calls_made INTEGER;
UPDATE tickwork_app SET schema_version = 25 WHERE id = 1;
