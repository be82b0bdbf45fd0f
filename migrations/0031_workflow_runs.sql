-- Issue 27: runs past 15 minutes through Cloudflare Workflows. A run of a schedule that names a
-- Workflow binding creates the instance (its id the run's) and stays `running` until a later tick
-- settles it from the instance's status. Only those runs take a row here, so the tick's first read
-- learns whether any is open by one lookup of this small table (app_row.MARK_TICK), and a tick
-- with none open reads nothing more. By `check_at`: the open instances a tick asks about, oldest
-- asked first.
CREATE TABLE tickwork_workflow_runs (
    run       TEXT PRIMARY KEY,     -- the run's id, which is the instance's id
    schedule  TEXT NOT NULL,        -- the schedule the run is of
    binding   TEXT NOT NULL,        -- the Workflow binding the instance was created on
    started   INTEGER NOT NULL,     -- when the instance was created (epoch ms)
    until_at  INTEGER NOT NULL,     -- the run's limit: past it the instance is terminated, the run failed
    claim     TEXT NOT NULL,        -- JSON: the due time, attempt and call it ran for, which its retry makes again
    check_at  INTEGER NOT NULL,     -- the tick time from which a tick next asks the instance its status
    terminate_by TEXT               -- an operator asked for the instance to be terminated: who (the next tick does it)
) WITHOUT ROWID;
CREATE INDEX tickwork_workflow_runs_by_check ON tickwork_workflow_runs (check_at);
UPDATE tickwork_app SET schema_version = 31 WHERE id = 1;
