"""Operator changes to every row a console filter shows, capped: the failed runs of the runs page
made again, and the deliveries of the deliveries page dismissed or cancelled.

Each is set-based, as the one-row verbs of operator.py are: one statement writes an operator-log
row for each row the change will take (those in the state it starts from), the next makes the
change under the same condition, and the rows its `RETURNING` gives witness what happened, all in
one batch, so the log and the changes agree however a tick or another operator races them. The
rows are those the filter's own statement picks (run_filters, delivery_filters), bound as that
page binds it: a handful of parameters however many rows, far inside D1's limits.

A failed due time is made again the way the one remake makes it (remakes.py): a backfill of that
one occurrence naming the failed run (`remake_of`), which the tick's backfill step makes under the
schedule's lease, once however ticks race, under the same conditions (remakes.REMAKABLE). So each
failed (schedule, due time) shown is made again once, one log row and one backfill each.
"""

import json
from dataclasses import dataclass

from ..database import Database, Row
from .alerts import iso_sql
from .delivery_filters import SEARCHED as EVENTS_SEARCHED
from .delivery_filters import EARLIEST, SELECT_EVERY_PAGE, SELECT_EVERY_PLAIN, SELECT_OPEN_PAGE, DeliveryFilter
from .operator import CANCELLABLE, DISMISSIBLE
from .remakes import REMADE_COLUMNS, REMAKABLE
from .run_filters import FAILED, LATEST, SELECT_FILTERED_FAILED, RunFilter

MOST = 100  # rows a bulk change takes at most a post, as the page says
FAILED_SEEN = 10_000  # failed runs a bulk retry looks through at most, through their own index

# The failed due times the filter shows (its ?1 to ?12, outcome failed): the latest failed run of
# each (schedule, due time), with what a remake of it is asked against (remakes.REMADE_COLUMNS) and
# whether it may be made again (remakes.REMAKABLE, its schedule still there), ?13 at most, latest first.
CANDIDATES = f"""
SELECT {REMADE_COLUMNS}, s.name IS NOT NULL AND {REMAKABLE} AS remakable
FROM (SELECT id, tick_at, row_number() OVER (PARTITION BY schedule, due_at ORDER BY tick_at DESC, id DESC) AS k
      FROM ({SELECT_FILTERED_FAILED})) AS f
JOIN tickwork_runs AS r ON r.id = f.id LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
WHERE f.k = 1 ORDER BY f.tick_at DESC, f.id DESC LIMIT CAST(?13 AS INTEGER)
"""
# ?16 the failed runs whose due time its schedule's timing still owes (a JSON list, checked in
# Python as the one remake checks it: operating/remake.py), so the backfill step makes each.
TAKEN_RUNS = f"""SELECT id, schedule, due_at FROM ({CANDIDATES})
WHERE remakable AND id IN (SELECT value FROM json_each(?16))"""
# ?14 now, ?15 who: one log row per due time made again.
LOG_RETRIES = f"""
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT lower(hex(randomblob(16))), ?14, ?15, 'remake', c.schedule,
       'due ' || {iso_sql('c.due_at')} || ' again, of run ' || c.id || ' (in bulk)'
FROM ({TAKEN_RUNS}) AS c
"""
# A due time an earlier backfill (or remake) made is marked made: the mark goes, before the
# request below makes the due time no longer remakable, so the step makes it once more.
FORGET_RETRIED = f"""
DELETE FROM tickwork_backfilled WHERE (schedule, at) IN (SELECT schedule, due_at FROM ({TAKEN_RUNS}))
"""
REQUEST_RETRIES = f"""
INSERT INTO tickwork_backfills (id, schedule, from_at, to_at, who, requested_at, next_at, remake_of)
SELECT lower(hex(randomblob(16))), c.schedule, c.due_at, c.due_at, ?15, ?14, c.due_at, c.id
FROM ({TAKEN_RUNS}) AS c
RETURNING remake_of
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


def _bound(runs: RunFilter, most: int) -> tuple[object, ...]:
    shown = RunFilter(runs.start, runs.end, FAILED, runs.name, runs.label, runs.action, runs.trace, runs.error)
    return (*shown.parameters(LATEST, FAILED_SEEN, FAILED_SEEN), most)


class BulkVerbs:
    def __init__(self, db: Database):
        self.db = db

    async def failed_due_times(self, runs: RunFilter, most: int = MOST) -> list[Row]:
        """The failed due times `runs` shows, `most` at most, each with whether it may be made
        again (remakes.REMAKABLE); only reads them."""
        return await self.db.all(CANDIDATES, _bound(runs, most))

    async def retry_failed(self, runs: RunFilter, who: str, now: int, owed: list[str], most: int = MOST) -> Bulk:
        """The failed due times `runs` shows, `most` at most, each made again once where it may be
        (remakes.REMAKABLE) and its run is one of `owed`. `changed`: the failed runs remade."""
        bound = _bound(runs, most)
        asked = (*bound, now, who, json.dumps(owed))
        rows, _, _, changed = await self.db.batch([(CANDIDATES, bound), (LOG_RETRIES, asked),
                                                   (FORGET_RETRIED, asked), (REQUEST_RETRIES, asked)])
        return Bulk(rows, [row["remake_of"] for row in changed], most)

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
