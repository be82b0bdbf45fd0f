-- Issue 25: `overlap: allow`. Runs of one schedule side by side: each run of an allowed schedule
-- is its own claim, its record keeping its own lease, since the schedule's row holds the lease of
-- its latest run only. The row still moves its due time by a compare-and-set, so each (schedule,
-- at) is claimed once; a run whose worker was lost is found by this lease (store.leases.running_made)
-- though a later run took the row's. NULL for every other run: a schedule without `allow` writes
-- nothing more, and no index names it (lapsed runs are read along the primary key).
ALTER TABLE tickwork_runs ADD COLUMN lease_until INTEGER;
UPDATE tickwork_app SET schema_version = 30 WHERE id = 1;
