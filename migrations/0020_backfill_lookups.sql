-- Issue 23: a backfill asks, for each occurrence it looks at, whether a run for it succeeded: a
-- run is for its due time (the index by schedule and due time finds it) or, covering several
-- occurrences, for the last of them, found through this. Only records covering several have an
-- entry, so a due run writes none more.
CREATE INDEX tickwork_runs_by_last_covered ON tickwork_runs (schedule, covers_last) WHERE covers_last IS NOT NULL;
