-- tickwork: a schedule handed over at run time can carry a label (whom or what it is for, as
-- the app said: `items.calendar(..., label="ada")`), shown to operators and no part of its id.
-- Rows from before keep none. No index names it: a tick never reads it, and writing it costs a
-- hand-over nothing more than its row.
ALTER TABLE tickwork_schedules ADD COLUMN label TEXT;
