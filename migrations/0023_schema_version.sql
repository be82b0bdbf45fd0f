-- Issue 23: a Worker deployed before `wrangler d1 migrations apply` refuses to tick, with
-- `migration.out_of_date`, rather than failing at each statement against the old tables. The app's
-- row keeps the schema its tables are at: this migration's number. Every later migration the
-- runtime needs sets it to its own number, and `schedule_store.SCHEMA` follows.
ALTER TABLE tickwork_app ADD COLUMN schema_version INTEGER NOT NULL DEFAULT 0;
UPDATE tickwork_app SET schema_version = 23 WHERE id = 1;
