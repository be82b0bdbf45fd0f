"""A run's lease: the predicates that say whether one is open, the window in which lapsed ones are
looked for, and the batch that ends the runs whose leases lapsed.

The invariants, each kept by the statement named:

1. A lease is open only while its run's record is `running` (LEASE_OPEN): the state row keeps
   `lease_run` and `lease_until` after the end that records the run (ends.RECORD_ENDS, and
   FAIL_EXPIRED_RUNS), which writes no state row to give it back; the one statement that clears
   them, claims.GIVE_BACK_COALESCED, follows the `coalesced` record its batch made for that run.
   A read of a lease reads it through LEASE_OPEN (`lease_held`, `holds_lease`), or, where it
   reads the run's start too, through the same test as a join (operator.SCHEDULES_WITH_RUNS).
2. A lease ends after every lapse dealt with (LEASE_AFTER_LAPSES, in claims.TAKE_LEASES and
   backfills.TAKE_BACKFILL_LEASES): one already lapsed by the clock the app's row has cleared to
   would lie outside every window a tick reads, and never be ended.
3. `lapse_clear` moves only while the window reaches back as far as the one read
   (LAPSES_CLEARED; app_row.MARK_TICK moves it only where no lease in the window lapsed): a tick
   that marked meanwhile with a longer reach may have taken a lease lapsing among records before it.
4. A tick's leases are timed on its invocation's clock, never on the tick's time: they begin at
   `tick.wall` (when the invocation began) plus the budget spent, last the run limit (or what is
   left of the budget, if less) and LEASE_GRACE (`tick.Lease`, `_Tick.lease`), and every test of a
   run's lease reads that clock, never the tick's time: `tick.wall` (?1 of LAPSED, ?4 of
   app_row.MARK_TICK, `State.lease_live` and `lease_expired`), or, for a claim batch's skips, when
   its leases begin (?3 of claims.SKIP), so a tick by hand for a time ahead neither ends a run
   going on nor takes a lease that holds up the ticks on the clock. (Housekeeping's pass is leased
   by the same Lease, for what is left of the budget, and taken at `_Tick.clock_ms`.)
5. An end gives back only its own lease: RECORD_ENDS ends only a record still `running`, and
   FAIL_EXPIRED_RUNS only the runs LAPSED finds still holding their claim (HOLDS_CLAIM: the row's
   lease, or, for a run side by side, its record's own); claims.GIVE_BACK_COALESCED clears only
   the lease its own run took.
6. A run of a schedule with `overlap: allow` is taken beside a run going on (claims.TAKE_LEASES_BESIDE,
   the due time's compare-and-set without the test of an open lease), and its record keeps its own
   lease (claims.RECORD_STARTS_BESIDE, migration 0030): the row's lease is its latest run's, and a
   run whose worker was lost is found by its own. Every other run's record keeps none.

Runs whose worker was lost are found along the records' primary key, whose ids begin with their
tick (sql.run_id): the app's row keeps the longest and the shortest any tick's leases lasted past
its time (`lease_reach`, `lease_short`, ms, below 0 for a tick ahead of its clock), and the clock
by which every lapsed lease was dealt with (`lapse_clear`). A run whose lease lapsed since then
was made after `lease_reach` before it and by `lease_short` before the clock: only those records
are read, each by about one tick (as many as fall between those two reaches). All three are
written with the tick's mark, no row more; a tick that finds no lapsed lease there moves
`lapse_clear` to its clock, and one that found some moves it when their runs are ended.
"""

from ..database import Database, Row, Statement
from ..model import ATTEMPT_LEFT_SQL, PAUSE_AFTER_SQL, SEEDS_SQL, Code, Kind

# A run's lease is the state row's `lease_run` and `lease_until` while the run's record is still
# `running`: the end that records the run gives its lease back, and no write of the state row does.
# (D1 bills each row written, and the row and the index of leases took two more a run.)
LEASE_OPEN = "EXISTS (SELECT 1 FROM tickwork_runs AS l WHERE l.id = s.lease_run AND l.outcome = 'running')"
# A run of the row `s` still going on its record's own lease (`overlap: allow`, invariant 6),
# which LEASE_OPEN does not see once a later run took the row's: by the partial index of such runs
# (migration 0030), so a schedule's other records, a backfill's 43,200 say, are never read for it.
RUNNING_BESIDE = ("EXISTS (SELECT 1 FROM tickwork_runs AS l INDEXED BY tickwork_runs_beside WHERE l.schedule = s.name"
                  " AND l.outcome = 'running' AND l.lease_until IS NOT NULL)")


def lease_held(now: str) -> str:
    """The SQL that holds where the state row `s` has a live lease at `now` (a parameter, on the
    invocation's clock): its run goes on, within its lease."""
    return f"(s.lease_until > {now} AND {LEASE_OPEN})"


def holds_lease(row: Row) -> bool:
    """Whether a schedule's row, read with LEASE_OPEN as `lease_open`, has a run going on under
    its lease: the row keeps its last lease after the run's end gives it back."""
    return bool(row.get("lease_run")) and bool(row.get("lease_open"))


# A run's claim: the row's lease, or, for a run of a schedule with `overlap: allow` (migration
# 0030), its record's own lease, which it keeps though a later run side by side took the row's.
HOLDS_CLAIM = "(s.lease_run = r.id OR r.lease_until IS NOT NULL)"


def running_made(since: str, until: str) -> str:
    """A subquery: the runs still `running` made from the tick `since` to the tick `until` (SQL),
    each with its name and lease (its own, where it keeps one: HOLDS_CLAIM), read along the
    primary key, and those of ids of no tick's form
    (made before migration 0017) through the index by tick, which holds only them."""
    return f"""(
    SELECT r.id AS run, r.schedule AS name, IFNULL(r.lease_until, s.lease_until) AS lease_until FROM tickwork_runs AS r
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND {HOLDS_CLAIM}
    WHERE r.id >= 'z' || printf('%012x', {since}) AND r.id < 'z' || printf('%012x', {until} + 1)
      AND r.outcome = 'running'
    UNION ALL
    SELECT r.id, r.schedule, s.lease_until FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    JOIN tickwork_schedules AS s ON s.name = r.schedule AND s.lease_run = r.id
    WHERE r.id < 'z' AND r.tick_at >= {since} AND r.tick_at <= {until} AND r.outcome = 'running')"""


# The window's last tick once the tick marked, by ?1 the clock.
WINDOW_END = "(SELECT CAST(?1 - IFNULL(lease_short, 0) AS INTEGER) FROM tickwork_app WHERE id = 1)"

# ?1 the clock, ?2 the window's first tick (as the tick's mark answers it): the runs still
# `running` whose lease lapsed by the clock, as a CTE `lapsed`.
LAPSED = f"""lapsed AS (
    SELECT run, name FROM {running_made('CAST(?2 AS INTEGER)', WINDOW_END)} WHERE lease_until <= ?1)"""

# The window as the app's row held it before this tick's mark: ?4 the clock, ?2 and ?3 the
# longest and shortest its leases may last past the tick. (A new app's row has dealt with no lease.)
WINDOW_FROM = ("(SELECT MAX(CAST(IFNULL(lapse_clear, 0) - IFNULL(lease_reach, ?2) + 1 AS INTEGER), 0)"
               " FROM tickwork_app WHERE id = 1)")
WINDOW_TO = "(SELECT CAST(?4 - IFNULL(lease_short, ?3) AS INTEGER) FROM tickwork_app WHERE id = 1)"

# The lapsed leases dealt with, in the batch that ends their runs: by ?1 there are none left. Only
# while the window reaches back as far as the one read (?2): a tick that marked meanwhile with a
# longer reach may have taken a lease lapsing by ?1 among records before it.
LAPSES_CLEARED = """
UPDATE tickwork_app SET lapse_clear = MAX(IFNULL(lapse_clear, ?1), ?1)
WHERE id = 1 AND MAX(CAST(IFNULL(lapse_clear, 0) - IFNULL(lease_reach, 0) + 1 AS INTEGER), 0) >= ?2
"""

# A lease is taken only to lapse after every lapse dealt with (?2 its end): one already lapsed by
# then (its tick's time behind another's) would lie outside every window a tick reads.
LEASE_AFTER_LAPSES = "NOT EXISTS (SELECT 1 FROM tickwork_app WHERE id = 1 AND lapse_clear >= ?2)"

# Before a lapsed lease's run is ended `lease_expired`: where its schedule declares attempts left
# (?3: JSON {name: [attempts, pause, ceiling, jitter]} of the declared; a handed-over one's own, in its timing),
# its retry is scheduled as a failed end schedules it, the pause counted from this tick (?4). A run by
# hand or a backfilled one is not retried, as when it fails otherwise: a backfill makes each
# occurrence once, and the row's due time and pending retry are its schedule's own. The runs are
# those of LAPSED (?1, ?2), here and in every statement of the batch that ends them.
# A rule's ceiling and jitter (`up to`, `jitter`) are [2] and [3] of a declared one's, where it has them;
# the jitter's seed is hashed from each lapsed run's schedule name (SEEDS_SQL), as Python hashes it.
# The row keeps one pending retry: a run side by side (`overlap: allow`, its own lease) that lost
# the row's lease to a later run schedules its retry only where none is pending.
RETRY_SLOT = ("(CASE WHEN r.lease_until IS NULL THEN s.lease_run = x.run ELSE s.retry_attempt IS NULL END)")
_PAUSE = "IFNULL(d.pause, json_extract(s.timing, '$.retry_pause_ms'))"
_CEILING = "IFNULL(d.ceiling, json_extract(s.timing, '$.retry_ceiling_ms'))"
_JITTER = "IFNULL(d.jitter, json_extract(s.timing, '$.retry_jitter_ms'))"
_ATTEMPT = "IFNULL(r.attempt, 1)"
_ATTEMPTS = "IFNULL(d.attempts, IFNULL(json_extract(s.timing, '$.retry_attempts'), 0))"
_PAUSE_AFTER = PAUSE_AFTER_SQL.format(pause=_PAUSE, attempt=_ATTEMPT, ceiling=_CEILING, jitter=_JITTER,
                                      seed="h.seed", due="r.due_at")
SCHEDULE_LAPSED_RETRIES = f"""
WITH RECURSIVE {LAPSED}, d AS (SELECT key AS name, json_extract(value, '$[0]') AS attempts,
           json_extract(value, '$[1]') AS pause, json_extract(value, '$[2]') AS ceiling,
           json_extract(value, '$[3]') AS jitter FROM json_each(?3)),
  {SEEDS_SQL.format(names="lapsed")}
UPDATE tickwork_schedules AS s
SET retry_next = s.due_at, retry_attempt = IFNULL(r.attempt, 1) + 1, retry_due = r.due_at,
    retry_at = r.at, retry_n = r.n, retry_i = r.i, retry_dst = r.dst,
    due_at = MIN(s.due_at, ?4 + {_PAUSE_AFTER})
FROM lapsed AS x JOIN tickwork_runs AS r ON r.id = x.run JOIN seeds AS h ON h.name = x.name
LEFT JOIN d ON d.name = r.schedule
WHERE s.name = x.name AND {RETRY_SLOT} AND r.by_hand IS NULL AND r.backfill IS NULL AND s.removed_at IS NULL
  AND {ATTEMPT_LEFT_SQL.format(attempt=_ATTEMPT, attempts=_ATTEMPTS)}
"""

# What a run whose lease lapsed at ?1 is recorded with: its alert says the same.
LAPSED_DETAIL = ("'the run held its lease past ' || CAST(?1 AS INTEGER) || ' and its end was never recorded: '"
                 " || 'its worker was lost, or could not reach D1 to record the end'")

# Last in that batch: the record that ends the run gives its lease back, as an end does.
FAIL_EXPIRED_RUNS = f"""
WITH {LAPSED}
UPDATE tickwork_runs
SET outcome = 'failed', code = '{Code.LEASE_EXPIRED}', kind = '{Kind.LOST}', ended_at = ?1,
    detail = {LAPSED_DETAIL}
WHERE id IN (SELECT run FROM lapsed) AND outcome = 'running'
"""


class Leases:
    """The runs whose leases lapsed, ended."""

    def __init__(self, db: Database):
        self.db = db

    async def expire_leases(self, lapsed: tuple[int, int], retries: str = "{}", alerts: list[Statement] | None = None,
                            tick: int | None = None) -> list[list[Row]]:
        """Ends every run whose lease lapsed as `failed`/`lease_expired` (`lapsed`: LAPSED's
        parameters, the clock and the window's first tick), scheduling the retries of those with
        attempts left (`retries`: JSON {name: [attempts, pause]}) from `tick` (the clock by
        default), then `alerts`, the statements announcing the schedules they start failing, in one
        transaction; what each of `alerts` returned."""
        tick = lapsed[0] if tick is None else tick
        alerting = alerts or []
        results = await self.db.batch([(SCHEDULE_LAPSED_RETRIES, (*lapsed, retries, tick)), *alerting,
                                       (FAIL_EXPIRED_RUNS, lapsed), (LAPSES_CLEARED, lapsed)])
        return results[1:1 + len(alerting)]
