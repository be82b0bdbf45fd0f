-- Issue 26: an operator makes a failed due time again from the console's run page, as a backfill
-- of that one occurrence which names the run it remakes; and a failed run keeps the end of its
-- traceback, which the run page shows whole.
ALTER TABLE tickwork_backfills ADD COLUMN remake_of TEXT;
ALTER TABLE tickwork_runs ADD COLUMN stack TEXT;
UPDATE tickwork_app SET schema_version = 26 WHERE id = 1;
