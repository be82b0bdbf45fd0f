-- Issue 25, jitter: a schedule with `jitter:` runs each due time an offset after it, drawn from
-- (its name's seed, the due time) by model.jitter_of. due_at stays the nominal due time (what
-- runs, history and backfill speak of); runs_at is the moment the tick looks at, computed from
-- the row itself, so every statement that moves due_at moves it too and racing ticks agree.
-- A pending retry runs at its own moment (its pause takes the retry's jitter instead).
ALTER TABLE tickwork_schedules ADD COLUMN jitter_ms INTEGER;
ALTER TABLE tickwork_schedules ADD COLUMN jitter_seed INTEGER;
ALTER TABLE tickwork_schedules ADD COLUMN runs_at INTEGER GENERATED ALWAYS AS (
    due_at + CASE WHEN jitter_ms IS NULL OR retry_attempt IS NOT NULL THEN 0 ELSE
        (jitter_seed + CAST(due_at AS INTEGER) / 1000 % 1000003 * 7919 + 0 * 104729) % 1000003
        * ((jitter_seed + CAST(due_at AS INTEGER) / 1000 % 1000003 * 7919 + 0 * 104729) % 1000003) % 1000003
        * (CAST(jitter_ms AS INTEGER) / 1000) / 1000003 * 1000 END) VIRTUAL;
-- The tick's one lookup of due rows, now by the moment they run.
DROP INDEX tickwork_schedules_by_due;
CREATE INDEX tickwork_schedules_by_due ON tickwork_schedules (runs_at) WHERE removed_at IS NULL;
UPDATE tickwork_app SET schema_version = 28 WHERE id = 1;
