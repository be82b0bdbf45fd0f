-- Issue 15: D1 bills every row written, index entries included. A run's lease is given back by the
-- end that records it: the lease is open only while its run's record is `running`, so the end no
-- longer writes the state row. Runs whose worker was lost are found along the run records' primary
-- key, their ids in tick order, in the window of ticks whose leases may have lapsed since the last
-- were dealt with (schedule_store.MARK_TICK), so the index of leases, which took an entry at every
-- lease, goes.

-- The longest and shortest a tick's leases have lasted past it, and the tick by which every
-- lapsed lease was dealt with; the leases held as this runs are of that window.
ALTER TABLE tickwork_app ADD COLUMN lease_reach INTEGER;
ALTER TABLE tickwork_app ADD COLUMN lease_short INTEGER;
ALTER TABLE tickwork_app ADD COLUMN lapse_clear INTEGER;
UPDATE tickwork_app SET
    lease_reach = (SELECT MAX(s.lease_until - r.tick_at) FROM tickwork_schedules AS s
                   JOIN tickwork_runs AS r ON r.id = s.lease_run WHERE s.lease_until IS NOT NULL),
    lease_short = (SELECT MIN(s.lease_until - r.tick_at) FROM tickwork_schedules AS s
                   JOIN tickwork_runs AS r ON r.id = s.lease_run WHERE s.lease_until IS NOT NULL),
    lapse_clear = IFNULL((SELECT MIN(r.tick_at) FROM tickwork_schedules AS s
                          JOIN tickwork_runs AS r ON r.id = s.lease_run WHERE s.lease_until IS NOT NULL), last_tick)
WHERE id = 1;

DROP INDEX tickwork_schedules_by_lease;
