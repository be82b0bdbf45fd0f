-- tickwork: backfills an operator asks for, made a few occurrences a tick; and how many
-- occurrences a run or skip covers where a tick found a schedule owing several.

-- A backfill: the occurrences of a schedule from `from_at` to `to_at` (inclusive) that have no
-- succeeded run, made oldest first. `next_at` is where the tick's step goes on from.
CREATE TABLE tickwork_backfills (
    id           TEXT PRIMARY KEY,
    schedule     TEXT NOT NULL,
    from_at      INTEGER NOT NULL,
    to_at        INTEGER NOT NULL,
    who          TEXT NOT NULL,
    requested_at INTEGER NOT NULL,
    state        TEXT NOT NULL DEFAULT 'pending',   -- pending, done, cancelled
    next_at      INTEGER NOT NULL,
    made         INTEGER NOT NULL DEFAULT 0,        -- the runs it made
    ended_at     INTEGER
);
-- The tick's first read asks whether any is pending, through this: nothing read when none is.
CREATE INDEX tickwork_backfills_pending ON tickwork_backfills (requested_at) WHERE state = 'pending';
CREATE INDEX tickwork_backfills_by_schedule ON tickwork_backfills (schedule, requested_at);

-- Each occurrence a backfill made, once per (schedule, at) however ticks race.
CREATE TABLE tickwork_backfilled (
    schedule TEXT NOT NULL,
    at       INTEGER NOT NULL,
    run      TEXT NOT NULL,
    backfill TEXT NOT NULL,
    PRIMARY KEY (schedule, at)
);
CREATE INDEX tickwork_backfilled_by_backfill ON tickwork_backfilled (backfill);

ALTER TABLE tickwork_runs ADD COLUMN backfill TEXT;        -- a backfilled run: who asked for it
ALTER TABLE tickwork_runs ADD COLUMN covers INTEGER;       -- the occurrences this run or skip covers, where more than one
ALTER TABLE tickwork_runs ADD COLUMN covers_first INTEGER; -- the first of them
ALTER TABLE tickwork_runs ADD COLUMN covers_last INTEGER;  -- and the last, the one it is for
ALTER TABLE tickwork_runs ADD COLUMN covers_more INTEGER;  -- 1 where counting stopped at its bound: at least `covers`
