-- tickwork: what a purge run deleted: the rows (`items`) and each batch's count (JSON).
ALTER TABLE tickwork_runs ADD COLUMN items INTEGER;
ALTER TABLE tickwork_runs ADD COLUMN batches TEXT;
