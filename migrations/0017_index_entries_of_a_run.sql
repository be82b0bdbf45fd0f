-- Issue 15: D1 bills every row written, index entries included. A run's or skip's id now begins
-- with `z` and its tick in 12 hex digits (`z` + printf('%012x', tick_at) + 19 random digits), so
-- the records' primary key keeps them in tick order and housekeeping deletes the oldest through it:
-- the index by tick no longer takes an entry for every record. It keeps only the records whose ids
-- are not of that form, those made before this migration: they are kept, and deleted oldest first
-- through it as before.
DROP INDEX tickwork_runs_by_tick;
CREATE INDEX tickwork_runs_by_tick ON tickwork_runs (tick_at) WHERE id < 'z';

-- A lease that lapses no earlier than its row's next due time is found among the rows due when it
-- lapses (schedule_store.LAPSED): only leases lapsing before it, or held on a row no longer there
-- to come due, take an entry in the index of leases.
DROP INDEX tickwork_schedules_by_lease;
CREATE INDEX tickwork_schedules_by_lease ON tickwork_schedules (lease_until)
WHERE lease_until IS NOT NULL AND (lease_until < due_at OR removed_at IS NOT NULL);
