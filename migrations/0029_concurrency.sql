-- Issue 25: concurrency per key. A schedule handed over with `concurrency=(key, K)` keeps its key
-- and limit on its row (NULL: no limit, as every row before this migration reads). A claim counts
-- the key's runs under way along this index, by key then lease: only rows with a key take an entry,
-- so a schedule without one costs nothing more, and a tick's count is one indexed lookup a key.
ALTER TABLE tickwork_schedules ADD COLUMN concurrency_key TEXT;
ALTER TABLE tickwork_schedules ADD COLUMN concurrency_limit INTEGER;
CREATE INDEX tickwork_schedules_by_concurrency ON tickwork_schedules (concurrency_key, lease_until)
    WHERE concurrency_key IS NOT NULL;
-- The tick reads the keyed rows that are due apart from the others (store.schedules.SELECT_DUE),
-- along this index: only keyed rows due, so keyed rows not yet due cost a tick nothing. By runs_at,
-- as the unkeyed rows are (0028): due work is found by the moment its jitter delays it to.
CREATE INDEX tickwork_schedules_keyed_by_due ON tickwork_schedules (runs_at)
    WHERE concurrency_key IS NOT NULL AND removed_at IS NULL;
UPDATE tickwork_app SET schema_version = 29 WHERE id = 1;
