-- Issue 25, deploys in the history: each time the declared set changes, the tick that notices it
-- records one marker, in the batch that seals the set as reconciled (store/deploys.py): when it
-- was noticed, the Worker's version where a version-metadata binding is bound, and what was
-- added, removed or changed. `declared` is the set as it was then ({name: what it declares}),
-- what the next marker is told apart from. Housekeeping keeps those within the retention, and
-- always the newest.
CREATE TABLE tickwork_deploys (
    id INTEGER PRIMARY KEY,
    at INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    version_id TEXT,
    version_tag TEXT,
    version_at TEXT,
    declared TEXT NOT NULL,
    added TEXT NOT NULL,
    removed TEXT NOT NULL,
    changed TEXT NOT NULL,
    first INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tickwork_deploys_by_time ON tickwork_deploys (at);
UPDATE tickwork_app SET schema_version = 27 WHERE id = 1;
