-- Issue 15: D1 bills every row written, index entries included. tickwork_runs kept its records
-- in a rowid table beside the index of its text primary key, two b-trees written for each record;
-- a table WITHOUT ROWID keeps each record in its primary key's b-tree alone, one write fewer for
-- every run's start and every skip. Rebuilt with its rows; its indexes as they were.
CREATE TABLE tickwork_runs_0012 (
    id          TEXT PRIMARY KEY,
    schedule    TEXT NOT NULL,
    due_at      INTEGER NOT NULL,          -- the grid time this run or skip is for
    tick_at     INTEGER NOT NULL,          -- the tick that took it; clock.now inside the run
    started_at  INTEGER,
    ended_at    INTEGER,
    outcome     TEXT NOT NULL,             -- running, succeeded, failed, skipped
    code        TEXT,                      -- a failure's code or a skip's reason
    kind        TEXT,                      -- a failure's kind: raised, deadline, lost
    detail      TEXT,                      -- what the failure said
    at          INTEGER,                   -- a calendar's moment, as the action read it
    n           INTEGER,                   -- a pulse's intervals
    i           INTEGER,                   -- the share this pulse call was for
    dst         TEXT,                      -- the daylight-saving rule that placed the call
    by_hand     TEXT,
    items       INTEGER,
    batches     TEXT,
    trace       TEXT,                      -- the run's trace; NULL for a skip
    events      TEXT                       -- what it emitted: JSON {"event": count}
) WITHOUT ROWID;

INSERT INTO tickwork_runs_0012 (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind,
    detail, at, n, i, dst, by_hand, items, batches, trace, events)
SELECT id, schedule, due_at, tick_at, started_at, ended_at, outcome, code, kind,
    detail, at, n, i, dst, by_hand, items, batches, trace, events
FROM tickwork_runs;

DROP TABLE tickwork_runs;
ALTER TABLE tickwork_runs_0012 RENAME TO tickwork_runs;

CREATE INDEX tickwork_runs_by_schedule ON tickwork_runs (schedule, due_at);
CREATE INDEX tickwork_runs_by_tick ON tickwork_runs (tick_at);
