-- tickwork: one state row per schedule, one record per run or skip. Times are epoch milliseconds.

CREATE TABLE tickwork_schedules (
    name        TEXT PRIMARY KEY,
    every_ms    INTEGER NOT NULL,          -- the interval the grid is kept on
    due_at      INTEGER NOT NULL,          -- the next grid time; with every_ms, the whole grid
    paused      INTEGER NOT NULL DEFAULT 0,
    lease_run   TEXT,                      -- the run holding the lease, if any
    lease_until INTEGER,                   -- when that lease lapses
    first_tick  INTEGER NOT NULL,          -- the tick that first saw the schedule
    last_tick   INTEGER NOT NULL           -- the last tick that reached it
);

CREATE TABLE tickwork_runs (
    id          TEXT PRIMARY KEY,
    schedule    TEXT NOT NULL,
    due_at      INTEGER NOT NULL,          -- the grid time this run or skip is for
    tick_at     INTEGER NOT NULL,          -- the tick that took it; clock.now inside the run
    started_at  INTEGER,
    ended_at    INTEGER,
    outcome     TEXT NOT NULL,             -- running, succeeded, failed, skipped
    code        TEXT,                      -- a failure's code or a skip's reason
    kind        TEXT,                      -- a failure's kind: raised, deadline, lost
    detail      TEXT                       -- what the failure said
);

CREATE INDEX tickwork_runs_by_schedule ON tickwork_runs (schedule, due_at);
