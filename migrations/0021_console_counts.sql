-- tickwork: the console's overview (issue 23) reads its counts instead of every row it counts.
--
-- The schedules by kind and state are counted here, kept by triggers in the statement that changes
-- a row, whichever writes it (the tick, a hand-over, an operator, housekeeping): a row made or
-- deleted writes one row more, a change of kind, live or paused two. A due run's lease, its skip
-- and its end set none of these columns, so they write nothing here (but for the lease or skip
-- that ends a schedule handed over: TAKE_LEASES_ENDING, SKIP_ENDING); nor does a nothing-due tick.
CREATE TABLE tickwork_schedule_counts (
    handed_over INTEGER NOT NULL,  -- action IS NOT NULL
    live        INTEGER NOT NULL,  -- removed_at IS NULL
    paused      INTEGER NOT NULL,  -- paused <> 0
    n           INTEGER NOT NULL,
    PRIMARY KEY (handed_over, live, paused)
) WITHOUT ROWID;
INSERT INTO tickwork_schedule_counts (handed_over, live, paused, n)
SELECT h.v, l.v, p.v, 0 FROM (SELECT 0 AS v UNION ALL SELECT 1) AS h, (SELECT 0 AS v UNION ALL SELECT 1) AS l,
     (SELECT 0 AS v UNION ALL SELECT 1) AS p;
UPDATE tickwork_schedule_counts AS c SET n = g.n
FROM (SELECT action IS NOT NULL AS h, removed_at IS NULL AS l, paused <> 0 AS p, count(*) AS n
      FROM tickwork_schedules GROUP BY 1, 2, 3) AS g
WHERE c.handed_over = g.h AND c.live = g.l AND c.paused = g.p;

CREATE TRIGGER tickwork_schedules_counted_in AFTER INSERT ON tickwork_schedules BEGIN
    UPDATE tickwork_schedule_counts SET n = n + 1
    WHERE handed_over = (NEW.action IS NOT NULL) AND live = (NEW.removed_at IS NULL) AND paused = (NEW.paused <> 0);
END;
CREATE TRIGGER tickwork_schedules_counted_out AFTER DELETE ON tickwork_schedules BEGIN
    UPDATE tickwork_schedule_counts SET n = n - 1
    WHERE handed_over = (OLD.action IS NOT NULL) AND live = (OLD.removed_at IS NULL) AND paused = (OLD.paused <> 0);
END;
CREATE TRIGGER tickwork_schedules_counted_again AFTER UPDATE OF action, removed_at, paused ON tickwork_schedules
WHEN (OLD.action IS NULL) <> (NEW.action IS NULL) OR (OLD.removed_at IS NULL) <> (NEW.removed_at IS NULL)
  OR (OLD.paused <> 0) <> (NEW.paused <> 0)
BEGIN
    UPDATE tickwork_schedule_counts SET n = n - 1
    WHERE handed_over = (OLD.action IS NOT NULL) AND live = (OLD.removed_at IS NULL) AND paused = (OLD.paused <> 0);
    UPDATE tickwork_schedule_counts SET n = n + 1
    WHERE handed_over = (NEW.action IS NOT NULL) AND live = (NEW.removed_at IS NULL) AND paused = (NEW.paused <> 0);
END;

-- The deliveries an operator should see to, newest change first: the overview's latest and its
-- counts, and the open ones `tickwork deliveries` and the console list, without reading those
-- delivered. A delivery takes an entry only while failed or outcome_unknown: one sent and
-- consumed never does. (Pending ones are read through tickwork_deliveries_to_send.)
CREATE INDEX tickwork_deliveries_failing ON tickwork_deliveries (updated_at)
WHERE state IN ('failed', 'outcome_unknown');
