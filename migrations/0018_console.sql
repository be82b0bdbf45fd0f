-- tickwork: the operator's console (issue 18) lists the declared schedules, removed ones too,
-- through an index rather than the whole table of those handed over. The tick never writes it:
-- a declared row's name does not change. (A search by label reads the rows instead: an index on
-- the label would cost each hand-over a row written, far more than the rare search reads.)
CREATE INDEX tickwork_schedules_declared_ever ON tickwork_schedules (name) WHERE action IS NULL;
