"""Operator changes to every row a console filter shows, capped: the failed runs of the runs page
made again, and the deliveries of the deliveries page dismissed or cancelled.

Each is set-based, as the one-row verbs of operator.py are: one statement writes an operator-log
row for each row the change will take (those in the state it starts from), the next makes the
change under the same condition, and the rows its `RETURNING` gives witness what happened, all in
one batch, so the log and the changes agree however a tick or another operator races them. The
rows are those the filter's own statement picks (run_filters, delivery_filters), bound as that
page binds it: a handful of parameters however many rows, far inside D1's limits.

A failed run is made again the way a run by hand is: the schedule's request (`run_requested_at`)
is set where none waits, and the next tick's claim consumes it under the schedule's lease, once,
however ticks race (claims.TAKE_LEASES). So a schedule with several failed runs shown gets one
run, for the moment it was last due.
"""

from dataclasses import dataclass

from ..database import Database, Row
from .alerts import iso_sql
from .delivery_filters import SEARCHED as EVENTS_SEARCHED
from .delivery_filters import EARLIEST, SELECT_EVERY_PAGE, SELECT_EVERY_PLAIN, SELECT_OPEN_PAGE, DeliveryFilter
from .operator import CANCELLABLE, DISMISSIBLE, RUNNABLE
from .run_filters import FAILED, LATEST, SELECT_FILTERED_FAILED, RunFilter

MOST = 100  # rows a bulk change takes at most a post, as the page says
FAILED_SEEN = 10_000  # failed runs a bulk retry looks through at most, through their own index

# The failed runs the filter shows (its ?1 to ?12, outcome failed), the latest of each schedule,
# with the schedule as it stands, ?13 schedules at most, latest failure first.
CANDIDATES = f"""
SELECT f.schedule, f.id AS run, f.due_at, f.tick_at, f.failed, s.name IS NOT NULL AS known,
       s.removed_at, s.paused, s.run_requested_at, s.run_requested_by, s.name IS NOT NULL AND s.{RUNNABLE} AS runnable
FROM (SELECT schedule, id, due_at, tick_at, count(*) OVER (PARTITION BY schedule) AS failed,
             row_number() OVER (PARTITION BY schedule ORDER BY tick_at DESC, id DESC) AS k
      FROM ({SELECT_FILTERED_FAILED})) AS f
LEFT JOIN tickwork_schedules AS s ON s.name = f.schedule
WHERE f.k = 1 ORDER BY f.tick_at DESC, f.id DESC LIMIT CAST(?13 AS INTEGER)
"""
TAKEN_RUNS = f"SELECT schedule, run, due_at FROM ({CANDIDATES}) WHERE runnable"
# ?14 now, ?15 who.
LOG_RETRIES = f"""
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT lower(hex(randomblob(16))), ?14, ?15, 'retry_failed', c.schedule,
       'run again by hand: failed run ' || c.run || ' due ' || {iso_sql('c.due_at')}
FROM ({TAKEN_RUNS}) AS c
"""
REQUEST_RETRIES = f"""
UPDATE tickwork_schedules SET run_requested_at = ?14, run_requested_by = ?15
WHERE name IN (SELECT schedule FROM ({TAKEN_RUNS})) AND {RUNNABLE} RETURNING name
"""

# The deliveries the filter shows (its ?1 to ?10), in the states `verb` starts from, ?13 at most.
# ?11 now, ?12 who.
SET_ASIDE_FROM = {"dismiss": DISMISSIBLE, "cancel": CANCELLABLE}
SET_ASIDE_AS = {"dismiss": "dismissed", "cancel": "cancelled"}
SHOWN_DELIVERIES = "SELECT id, state FROM ({page}) WHERE {when} ORDER BY emitted_at, id LIMIT CAST(?13 AS INTEGER)"
LOG_SET_ASIDE = """
INSERT INTO tickwork_operator_log (id, at, who, verb, delivery, detail)
SELECT lower(hex(randomblob(16))), ?11, ?12, '{verb}', id, 'from ' || state || ' (in bulk)' FROM ({shown})
"""
SET_ASIDE_ALL = """
UPDATE tickwork_deliveries
SET state = '{state}', next_attempt_at = NULL, lease_run = NULL, lease_until = NULL, updated_at = ?11
WHERE id IN (SELECT id FROM ({shown})) AND {when} RETURNING id
"""


def _set_aside(verb: str, page: str) -> tuple[str, str, str]:
    shown = SHOWN_DELIVERIES.format(page=page, when=SET_ASIDE_FROM[verb])
    return (f"SELECT * FROM ({page}) WHERE {SET_ASIDE_FROM[verb]} ORDER BY emitted_at, id LIMIT CAST(?13 AS INTEGER)",
            LOG_SET_ASIDE.format(verb=verb, shown=shown),
            SET_ASIDE_ALL.format(state=SET_ASIDE_AS[verb], shown=shown, when=SET_ASIDE_FROM[verb]))


PAGES = {"open": SELECT_OPEN_PAGE, "every": SELECT_EVERY_PLAIN, "window": SELECT_EVERY_PAGE}
SET_ASIDE_STATEMENTS = {(verb, kind): _set_aside(verb, page) for verb in SET_ASIDE_AS for kind, page in PAGES.items()}


@dataclass(frozen=True)
class Bulk:
    """What a bulk change came to, or would (a dry run): the rows it looks at, and those changed."""

    rows: list[Row]
    changed: list[str]
    most: int = MOST


class BulkVerbs:
    def __init__(self, db: Database):
        self.db = db

    async def retry_failed(self, runs: RunFilter, who: str, now: int, dry: bool, most: int = MOST) -> Bulk:
        """The failed runs `runs` shows, the latest of each schedule, `most` schedules at most, each
        made again by hand where it may be (live, not paused, none asked for already); a dry run
        only reads them."""
        shown = RunFilter(runs.start, runs.end, FAILED, runs.name, runs.label, runs.action, runs.trace, runs.error)
        bound = (*shown.parameters(LATEST, FAILED_SEEN, FAILED_SEEN), most)
        if dry:
            return Bulk(await self.db.all(CANDIDATES, bound), [], most)
        rows, _, changed = await self.db.batch([(CANDIDATES, bound), (LOG_RETRIES, (*bound, now, who)),
                                                (REQUEST_RETRIES, (*bound, now, who))])
        return Bulk(rows, [row["name"] for row in changed], most)

    async def set_aside(self, verb: str, deliveries: DeliveryFilter, who: str, now: int, dry: bool,
                        after: tuple[float, str] = EARLIEST, most: int = MOST) -> Bulk:
        """The deliveries `deliveries` shows after the cursor `after` (the page's) that `verb`
        (dismiss, cancel) starts from, `most` at most, set aside; a dry run only reads them."""
        kind = ("window" if deliveries.windowed else "every") if deliveries.along_events else "open"
        read, log, change = SET_ASIDE_STATEMENTS[(verb, kind)]
        bound = deliveries.parameters(after, EVENTS_SEARCHED)
        if dry:
            return Bulk(await self.db.all(read, (*bound, now, who, most)), [], most)
        rows, _, changed = await self.db.batch([(read, (*bound, now, who, most)), (log, (*bound, now, who, most)),
                                                (change, (*bound, now, who, most))])
        return Bulk(rows, [row["id"] for row in changed], most)
