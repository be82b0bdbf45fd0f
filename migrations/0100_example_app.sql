-- The example app's own table, not tickwork's: numbered after tickwork's migrations, which keep
-- 0001 to 0099. Each chore done, kept 30 days (src/app/domains/planning/schedules/chores_done.jadpo).

CREATE TABLE chores_done (
    id       INTEGER PRIMARY KEY,
    chore    TEXT NOT NULL,
    done_at  INTEGER NOT NULL           -- epoch milliseconds
);

CREATE INDEX chores_done_by_time ON chores_done (done_at);
