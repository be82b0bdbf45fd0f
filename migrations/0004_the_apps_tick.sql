-- tickwork: the app's own last tick, kept once; lapsed leases found by an index, whoever holds them.

-- One row: the last tick that reached the app, and the one before it. A schedule whose row
-- missed the app's previous tick was absent from the app meanwhile.
CREATE TABLE tickwork_app (
    id        INTEGER PRIMARY KEY CHECK (id = 1),
    last_tick INTEGER,
    prev_tick INTEGER
);

INSERT INTO tickwork_app (id, last_tick, prev_tick)
SELECT 1, MAX(last_tick), MAX(prev_tick) FROM tickwork_schedules;

-- A tick asks for the earliest lease, declared schedule or not, to end runs whose worker was lost.
CREATE INDEX tickwork_schedules_by_lease ON tickwork_schedules (lease_until)
WHERE lease_until IS NOT NULL;
