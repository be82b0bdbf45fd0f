-- Issue 25: `overlap: allow`. Runs of one schedule side by side: each run of an allowed schedule
-- is its own claim, its record keeping its own lease, since the schedule's row holds the lease of
-- its latest run only. The row still moves its due time by a compare-and-set, so each (schedule,
-- at) is claimed once; a run whose worker was lost is found by this lease (store.leases.running_made)
-- though a later run took the row's. NULL for every other run: a schedule without `allow` writes
-- nothing more (lapsed runs are read along the primary key). The partial index holds only the runs
-- going on their own lease, so "is a run of this schedule going beside?" (a backfill's, a purge's
-- check) reads those, not every record of the schedule: an index entry only for an allowed run,
-- written at its start and gone at its end.
ALTER TABLE tickwork_runs ADD COLUMN lease_until INTEGER;
CREATE INDEX tickwork_runs_beside ON tickwork_runs (schedule)
    WHERE outcome = 'running' AND lease_until IS NOT NULL;
UPDATE tickwork_app SET schema_version = 30 WHERE id = 1;
