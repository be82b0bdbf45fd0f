-- tickwork: a tick reads what is due, not what exists. The app's last tick is kept once; a
-- schedule no longer declared is marked removed when a deploy changes the declared set.

-- One row: the last tick that reached the app, the one before it, and the declared set (a
-- fingerprint) the state rows were last reconciled with.
CREATE TABLE tickwork_app (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    last_tick   INTEGER,
    prev_tick   INTEGER,
    fingerprint TEXT
);

INSERT INTO tickwork_app (id, last_tick, prev_tick)
SELECT 1, MAX(last_tick), MAX(prev_tick) FROM tickwork_schedules;

-- The tick that found the schedule no longer declared; NULL while it is.
ALTER TABLE tickwork_schedules ADD COLUMN removed_at INTEGER;

-- Until now every tick marked each declared row, so a row that missed the last tick was removed.
UPDATE tickwork_schedules SET removed_at = last_tick
WHERE last_tick < (SELECT last_tick FROM tickwork_app WHERE id = 1);

-- What a tick looks up: the declared rows due by now, and the earliest lease held on any row.
CREATE INDEX tickwork_schedules_by_due ON tickwork_schedules (due_at) WHERE removed_at IS NULL;
CREATE INDEX tickwork_schedules_by_lease ON tickwork_schedules (lease_until)
WHERE lease_until IS NOT NULL;
