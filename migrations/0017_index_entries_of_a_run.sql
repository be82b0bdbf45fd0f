-- Issue 15: D1 bills every row written, index entries included. A run's or skip's id now begins
-- with `z` and its tick in 12 hex digits (`z` + printf('%012x', tick_at) + 19 random digits), so
-- the records' primary key keeps them in tick order, and housekeeping and the history read them
-- through it: the index by tick no longer takes an entry for every record. It keeps only the
-- records whose ids are not of that form (below 'z'): those made before this migration, and the
-- skip recording what a calendar missed while a deploy had removed it (its id derives from its
-- row, so that racing ticks agree on it). Those are read and deleted oldest first through it.
DROP INDEX tickwork_runs_by_tick;
CREATE INDEX tickwork_runs_by_tick ON tickwork_runs (tick_at) WHERE id < 'z';
