-- Issue 23: a tick's time may be far from its invocation's clock (a tick by hand for a time
-- ahead). Leases, housekeeping and the gaps in the ticks keep to the invocation's clock; only
-- what is due, and the records of the runs made, follow the tick's time.

-- The clock of the app's last tick and of the one before it, beside their times: the gap that
-- says ticks stopped is measured on the clock.
ALTER TABLE tickwork_app ADD COLUMN last_clock INTEGER;
ALTER TABLE tickwork_app ADD COLUMN prev_clock INTEGER;

-- Lapsed leases were dealt with by a tick's time, which a tick ahead moved on for good: from here
-- on by the clock, so no later than the clock now (earlier only reads a little further back).
UPDATE tickwork_app SET lapse_clear = MIN(lapse_clear, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
WHERE id = 1 AND lapse_clear IS NOT NULL;
