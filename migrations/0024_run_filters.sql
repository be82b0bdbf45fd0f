-- Issue 26: the console's runs page filters failed runs, and its bulk retry makes them again. An
-- index of the failed runs alone, by tick (each entry holds the run's id, the table's key), reads
-- them without the succeeded and skipped ones around them; a run that succeeds or is skipped takes
-- no entry, so a tick's cost follows what failed.
CREATE INDEX tickwork_runs_failed ON tickwork_runs (tick_at) WHERE outcome = 'failed';
UPDATE tickwork_app SET schema_version = 24 WHERE id = 1;
