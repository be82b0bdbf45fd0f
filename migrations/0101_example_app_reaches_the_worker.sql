-- The example app's tables written by actions that reach the Worker (src/app/domains/...):
-- numbered after tickwork's migrations, which keep 0001 to 0099.

-- What `tally_chores` counts in chores_done, read and written through the Worker's own D1 binding.
CREATE TABLE chore_tallies (
    at    INTEGER PRIMARY KEY,      -- the run's clock.now, epoch milliseconds
    done  INTEGER NOT NULL          -- chores done in the day before it
);

-- Each digest `publish_digest` made, written with its run's end (on_success.write).
CREATE TABLE digests_sent (
    at         INTEGER PRIMARY KEY, -- the run's clock.now, epoch milliseconds
    recipient  TEXT NOT NULL,       -- the var REPORT_TO
    signature  TEXT                 -- HMAC-SHA256 of the digest under the secret REPORTS_TOKEN; NULL unsigned
);
