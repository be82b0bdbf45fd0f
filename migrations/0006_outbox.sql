-- tickwork: the outbox. What a run emits is written with its end record, never before it
-- succeeded, then sent to its queue; a delivery record per queue keeps where it stands.

CREATE TABLE tickwork_events (
    id         TEXT PRIMARY KEY,
    name       TEXT NOT NULL,              -- the event as declared
    body       TEXT NOT NULL,              -- JSON
    run        TEXT,                       -- the run that emitted it, if a run did
    emitted_at INTEGER NOT NULL
);

CREATE TABLE tickwork_deliveries (
    id              TEXT PRIMARY KEY,      -- carried by the message: consumers dedupe on it
    event           TEXT NOT NULL,
    queue           TEXT NOT NULL,         -- the producer binding it is sent through
    state           TEXT NOT NULL,         -- pending, running, succeeded, failed, outcome_unknown, dismissed, cancelled
    attempts        INTEGER NOT NULL DEFAULT 0,  -- sends
    next_attempt_at INTEGER,               -- pending or outcome_unknown: when the sweep sends it
    lease_run       TEXT,                  -- running: who sent it, and until when it waits on
    lease_until     INTEGER,               --   the send or the consumer before the sweep sends it again
    last_error      TEXT,
    updated_at      INTEGER NOT NULL
);

-- What the sweep looks up: deliveries to send by now, and running ones past their lease.
CREATE INDEX tickwork_deliveries_to_send ON tickwork_deliveries (next_attempt_at)
WHERE state IN ('pending', 'outcome_unknown');
CREATE INDEX tickwork_deliveries_by_lease ON tickwork_deliveries (lease_until)
WHERE state = 'running';
CREATE INDEX tickwork_deliveries_by_event ON tickwork_deliveries (event);

-- A consumer dealt with this delivery (or, for a message tickwork did not send, this message id).
CREATE TABLE tickwork_handled (
    delivery   TEXT PRIMARY KEY,
    handled_at INTEGER NOT NULL
);
