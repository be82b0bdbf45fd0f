"""What an operator reads and changes: schedules, runs, deliveries, the app's ticks and gaps.

Every change is one batch of three statements: the operator log row, written only where the
row is in the state the change starts from; the change itself, under the same condition, whose
`RETURNING` rows witness that it happened; and a read of the row as the batch left it, which
says why nothing happened where nothing did. In one transaction the log row and the change
happen together or not at all, whoever races them (a tick, another operator).
"""

import re
import uuid
from dataclasses import dataclass

from ..database import Database, Row
from ..times import NEVER
from .alerts import iso_sql
from .app_row import IS_FAILING
from .leases import LEASE_OPEN
from .schedules import ITEM_CANCELLABLE, ONE_OFF_DONE
from .sql import first

# The app's one row: its last tick and the one before it.
SELECT_APP = "SELECT last_tick, prev_tick FROM tickwork_app WHERE id = 1"

# Schedules with their last run (the latest due time a tick dealt with, through the runs' index
# on (schedule, due_at)) and the run holding its lease, while it does (its record running).
SCHEDULES_WITH_RUNS = """
SELECT s.*,
       r.id AS last_run, r.outcome AS last_outcome, r.code AS last_code, r.due_at AS last_due,
       r.tick_at AS last_tick_at, r.started_at AS last_started, r.ended_at AS last_ended,
       r.by_hand AS last_by_hand,
       l.started_at AS lease_started, l.id IS NOT NULL AS lease_open
FROM tickwork_schedules AS s
LEFT JOIN tickwork_runs AS r ON r.id = (
    SELECT id FROM tickwork_runs WHERE schedule = s.name ORDER BY due_at DESC, tick_at DESC LIMIT 1)
LEFT JOIN tickwork_runs AS l ON l.id = s.lease_run AND l.outcome = 'running'"""


# A page of schedules, declared and handed over, in name order after the cursor ?1 (the last name
# of the page before; '' for the first), through the primary key's index: a million handed over
# cost a page what a hundred do. ?2 a GLOB on the name, ?3 a kind (every, calendar, pulse, once),
# ?4 a state (as `tickwork schedules --state` names them), each or NULL; ?5 how many at most.
# ?7 to ?8 the range of names the GLOB's literal start gives (glob_range): the page is read from
# the later of it and the cursor (the name just past ?1 is ?1 || char(0)) to the end of it, or of
# the window below, whichever comes first: one range of the index, bounded at both ends.
# With a filter, which no index serves, ?6 is SEARCHED: the page looks through that many names of
# the range after ?1 at most, and SCHEDULES_WINDOW says where it stopped, so a filter that few rows
# pass costs a page what it costs among a hundred (NULL without one: the page is read until full).
SEARCHED = 10_000
WINDOW = "SELECT name FROM tickwork_schedules WHERE name > ?{after} ORDER BY name LIMIT CAST(?{most} AS INTEGER)"
SEARCH_WINDOW = f"SELECT max(name) AS last, count(*) AS n FROM ({WINDOW.format(after=1, most=2)})"
IN_RANGE = "{t}name >= max(?{after} || char(0), ?{lo}) AND {t}name < ?{hi}"
SCHEDULES_WINDOW = (f"SELECT max(name) AS last, count(*) AS n FROM "
                    f"(SELECT name FROM tickwork_schedules WHERE {IN_RANGE.format(t='', after=1, lo=3, hi=4)} "
                    f"ORDER BY name LIMIT CAST(?2 AS INTEGER))")
SCHEDULE_KIND = "substr(IFNULL(s.form, 'every '), 1, instr(IFNULL(s.form, 'every '), ' ') - 1)"
SELECT_SCHEDULES_PAGE = f"""{SCHEDULES_WITH_RUNS}
WHERE s.name >= max(?1 || char(0), ?7) AND (?2 IS NULL OR s.name GLOB ?2) AND (?3 IS NULL OR {SCHEDULE_KIND} = ?3)
  AND s.name <= CASE WHEN ?6 IS NULL THEN ?8 ELSE (SELECT max(name) FROM (
      SELECT name FROM tickwork_schedules WHERE {IN_RANGE.format(t='', after=1, lo=7, hi=8)}
      ORDER BY name LIMIT CAST(?6 AS INTEGER))) END
  AND CASE ?4
      WHEN 'active' THEN s.removed_at IS NULL
      WHEN 'paused' THEN s.paused = 1 AND s.removed_at IS NULL
      WHEN 'running' THEN l.id IS NOT NULL
      WHEN 'removed' THEN s.removed_at IS NOT NULL
      WHEN 'failing' THEN {IS_FAILING}
      WHEN 'declared' THEN s.action IS NULL
      WHEN 'handed-over' THEN s.action IS NOT NULL
      ELSE 1 END
ORDER BY s.name LIMIT CAST(?5 AS INTEGER)
"""

# Run records by their tick. A tick's run ids begin with `z` and the tick in 12 hex digits
# (sql.run_id), so along the primary key they are in (tick_at, id) order, and those
# since a tick are the ids from `z` and its digits on: they are read through it. Records of other
# ids, all below 'z' (made before migration 0017, and the skips recording what a calendar missed
# while a deploy had removed it), are read through the index by tick, which holds only them.
# ?1 the earliest tick (0 for any; one before 1970 bounds the ids from 0, as printf writes a
# negative one as 16 digits of its two's complement, above every id).
NEW_SINCE = "r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1"
OLD_SINCE = "r.id < 'z' AND r.tick_at >= ?1"
OLD_BY_TICK = "tickwork_runs AS r INDEXED BY tickwork_runs_by_tick"
RUNS_SINCE = f"""
SELECT * FROM tickwork_runs AS r WHERE {NEW_SINCE}
UNION ALL
SELECT * FROM {OLD_BY_TICK} WHERE {OLD_SINCE}"""

# Runs and skips across every schedule, the latest tick first, with their schedule's form and
# label (the command's `history` without a name, the console's runs): a page of each kind of id
# read in order and stopped by its range (?2, ?3 the cursor (tick_at, id) of the last run of the
# page before, or past every run: for a tick's ids, `id` below the cursor's or its tick's digits),
# the two pages ordered again. ?4 an outcome, ?5 a GLOB on the schedule's name, each or NULL; ?6
# how many at most. A filter that few runs pass reads on until the page is full.
RECENT = "(r.tick_at, r.id) < (?2, ?3) AND (?4 IS NULL OR r.outcome = ?4) AND (?5 IS NULL OR r.schedule GLOB ?5)"
SELECT_RECENT_RUNS = f"""
SELECT r.*, s.form AS form, s.label AS label
FROM (
    SELECT * FROM (
        SELECT * FROM tickwork_runs AS r
        WHERE {NEW_SINCE} AND r.id < max('z' || printf('%012x', CAST(?2 AS INTEGER)), ?3) AND {RECENT}
        ORDER BY r.id DESC LIMIT CAST(?6 AS INTEGER))
    UNION ALL
    SELECT * FROM (
        SELECT * FROM {OLD_BY_TICK} WHERE {OLD_SINCE} AND {RECENT}
        ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?6 AS INTEGER))
) AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?6 AS INTEGER)
"""
# A cursor before which every run falls, for the command (wrangler takes it inlined, as an integer)
# and the Worker alike: the largest int Pyodide hands to D1 as a number (NEVER, 2^53 - 1, and above
# go as a BigInt, which D1 refuses).
PAST_EVERY_RUN = (NEVER - 1, "")

SELECT_SCHEDULE = f"SELECT s.*, {LEASE_OPEN} AS lease_open FROM tickwork_schedules AS s WHERE s.name = ?1"

# A schedule's runs and skips, newest due first: ?2 the earliest tick (or NULL), ?3 1 for failed
# runs only, ?4 how many at most. (D1 binds every number as a REAL: a LIMIT is cast back.)
SELECT_HISTORY = """
SELECT * FROM tickwork_runs
WHERE schedule = ?1 AND (?2 IS NULL OR tick_at >= ?2) AND (?3 = 0 OR outcome = 'failed')
ORDER BY due_at DESC, tick_at DESC LIMIT CAST(?4 AS INTEGER)
"""

# What operators did to a schedule, newest first, through the log's index on (schedule, at).
SELECT_SCHEDULE_LOG = """
SELECT * FROM tickwork_operator_log
WHERE schedule = ?1 AND (?2 IS NULL OR at >= ?2)
ORDER BY at DESC LIMIT CAST(?3 AS INTEGER)
"""

# The latest run or skip of a schedule, and the run holding its lease.
SELECT_LAST_RUN = """
SELECT * FROM tickwork_runs WHERE schedule = ?1 ORDER BY due_at DESC, tick_at DESC LIMIT 1
"""
SELECT_LEASE_RUN = "SELECT * FROM tickwork_runs WHERE id = (SELECT lease_run FROM tickwork_schedules WHERE name = ?1)"

# The gaps ticks left, the latest first.
SELECT_GAPS = "SELECT * FROM tickwork_gaps ORDER BY to_tick DESC LIMIT CAST(?1 AS INTEGER)"

# The deliveries an operator may act on (or every one kept), oldest event first, with their event's
# name and the start of its body, ?1 at most. Those an operator may act on are read through the
# indexes that hold only them (tickwork_deliveries_to_send, and tickwork_deliveries_failing of
# migration 0021), so the deliveries sent and consumed are not read; every one kept is read along
# the events' index by emission, a page of them.
TO_SEND = "state IN ('pending', 'outcome_unknown')"
FAILING = "state IN ('failed', 'outcome_unknown')"
OPEN_DELIVERIES = f"""d.id IN (
    SELECT id FROM tickwork_deliveries WHERE {TO_SEND}
    UNION ALL SELECT id FROM tickwork_deliveries WHERE {FAILING} AND state = 'failed')"""
DELIVERIES = """
SELECT d.*, e.name AS event_name, substr(e.body, 1, 200) AS body, length(e.body) AS body_length,
       e.run AS run, e.emitted_at AS emitted_at
FROM {rows}
WHERE {which}
ORDER BY e.emitted_at, d.id LIMIT CAST(?1 AS INTEGER)
"""
OPEN_ROWS = "tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event"
EVERY_ROW = ("tickwork_events AS e INDEXED BY tickwork_events_by_emitted "
             "CROSS JOIN tickwork_deliveries AS d ON d.event = e.id")
SELECT_DELIVERIES = DELIVERIES.format(rows=OPEN_ROWS, which=OPEN_DELIVERIES)
SELECT_EVERY_DELIVERY = DELIVERIES.format(rows=EVERY_ROW, which="1")

# What operators did to the deliveries SELECT_DELIVERIES (or SELECT_EVERY_DELIVERY) reads (the same
# ?1), newest first, through the log's index on (delivery, at): in the same batch, so that the verb
# is one round trip (one `wrangler d1 execute` with --remote) and the log is of the rows as read.
DELIVERY_LOG = """
SELECT * FROM tickwork_operator_log
WHERE delivery IN (
    SELECT d.id FROM {rows}
    WHERE {which}
    ORDER BY e.emitted_at, d.id LIMIT CAST(?1 AS INTEGER))
ORDER BY at DESC
"""
SELECT_DELIVERY_LOG = DELIVERY_LOG.format(rows=OPEN_ROWS, which=OPEN_DELIVERIES)
SELECT_EVERY_DELIVERY_LOG = DELIVERY_LOG.format(rows=EVERY_ROW, which="1")

SELECT_DELIVERY = "SELECT * FROM tickwork_deliveries WHERE id = ?1"

# The changes. The log row's ?1 is the schedule's name or the delivery's id, ?2 the row's id, ?3
# now, ?4 who; the change's ?1 the same name or id, ?2 now, ?3 who.
LOG_SCHEDULE = """
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?2, ?3, ?4, '{verb}', name, {detail} FROM tickwork_schedules WHERE name = ?1 AND {when}
"""
LOG_DELIVERY = """
INSERT INTO tickwork_operator_log (id, at, who, verb, delivery, detail)
SELECT ?2, ?3, ?4, '{verb}', id, 'from ' || state FROM tickwork_deliveries WHERE id = ?1 AND {when}
"""

# Pausing and resuming only flip `paused`: the tick keeps moving the due time along the grid
# (recording each due time skipped `paused`), so a resumed schedule's next due time is the grid's.
LIVE = "removed_at IS NULL"
PAUSABLE = f"{LIVE} AND paused = 0"
RESUMABLE = f"{LIVE} AND paused = 1"
PAUSE = f"UPDATE tickwork_schedules SET paused = 1 WHERE name = ?1 AND {PAUSABLE} RETURNING name"
RESUME = f"UPDATE tickwork_schedules SET paused = 0 WHERE name = ?1 AND {RESUMABLE} RETURNING name"

# A run asked for by hand: the next tick's first step makes it under the schedule's lease. One
# asked for and not yet made is not asked for again; a paused schedule's lease is never taken.
RUNNABLE = f"{LIVE} AND paused = 0 AND run_requested_at IS NULL"
REQUEST_RUN = f"""
UPDATE tickwork_schedules SET run_requested_at = ?2, run_requested_by = ?3
WHERE name = ?1 AND {RUNNABLE} RETURNING name
"""

# A delivery sent again: from failed, outcome_unknown or pending, back to pending, due now.
RETRIABLE = "state IN ('failed', 'outcome_unknown', 'pending')"
RETRY = f"""
UPDATE tickwork_deliveries
SET state = 'pending', next_attempt_at = ?2, lease_run = NULL, lease_until = NULL, updated_at = ?2
WHERE id = ?1 AND {RETRIABLE} RETURNING id
"""
# Set aside for good: a failed delivery (or one whose send may not have gone) is dismissed; one
# not yet delivered is cancelled. Neither is sent again; the tick deletes them 30 days after the
# operator's last action, counted from this log.
DISMISSIBLE = "state IN ('failed', 'outcome_unknown')"
CANCELLABLE = "state IN ('pending', 'outcome_unknown', 'failed')"
SET_ASIDE = """
UPDATE tickwork_deliveries
SET state = '{state}', next_attempt_at = NULL, lease_run = NULL, lease_until = NULL, updated_at = ?2
WHERE id = ?1 AND {when} RETURNING id
"""

# A backfill asked for: the request and its log row, only for a schedule still there, or a one-off
# item done with its call (?1 its name, ?2 the backfill's id, ?3 now, ?4 who, ?5 from, ?6 to, ?7 the
# log's id; the log says the range in ISO UTC times, as an operator reads it). The tick's backfill
# step makes it.
BACKFILLABLE = f"FROM tickwork_schedules WHERE name = ?1 AND (removed_at IS NULL OR ended = '{ONE_OFF_DONE}')"
LOG_BACKFILL = f"""
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?7, ?3, ?4, 'backfill', name,
       'backfill ' || ?2 || ' from ' || {iso_sql('?5')} || ' to ' || {iso_sql('?6')} {BACKFILLABLE}
"""
REQUEST_BACKFILL = f"""
INSERT INTO tickwork_backfills (id, schedule, from_at, to_at, who, requested_at, next_at)
SELECT ?2, name, ?5, ?6, ?4, ?3, ?5 {BACKFILLABLE}
RETURNING id
"""

# A pending backfill cancelled: the occurrences it made stay made, the rest are never made.
LOG_CANCEL_BACKFILL = """
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule, detail)
SELECT ?2, ?3, ?4, 'cancel_backfill', schedule, 'backfill ' || id FROM tickwork_backfills
WHERE id = ?1 AND state = 'pending'
"""
CANCEL_BACKFILL = """
UPDATE tickwork_backfills SET state = 'cancelled', ended_at = ?2 WHERE id = ?1 AND state = 'pending'
RETURNING id
"""
SELECT_BACKFILL = "SELECT * FROM tickwork_backfills WHERE id = ?1"

# The backfills kept (?1 a schedule's name, or NULL for all), pending first, newest asked first.
SELECT_BACKFILLS = """
SELECT * FROM tickwork_backfills WHERE ?1 IS NULL OR schedule = ?1
ORDER BY state <> 'pending', requested_at DESC LIMIT CAST(?2 AS INTEGER)
"""

# A schedule handed over at run time, cancelled by an operator: as `items.cancel` ends it.
CANCEL_ITEM = f"""
UPDATE tickwork_schedules SET removed_at = ?2, ended = 'cancelled'
WHERE name = ?1 AND {ITEM_CANCELLABLE} RETURNING name
"""


@dataclass(frozen=True)
class Change:
    """What one operator change came to: whether it happened, and the row as it left it (None
    where there is no such schedule or delivery)."""

    changed: bool
    row: Row | None


@dataclass(frozen=True)
class _Verb:
    log: str
    change: str
    read: str


def _schedule_verb(verb: str, change: str, when: str, detail: str = "NULL") -> _Verb:
    return _Verb(LOG_SCHEDULE.format(verb=verb, when=when, detail=detail), change, SELECT_SCHEDULE)


def _delivery_verb(verb: str, change: str, when: str) -> _Verb:
    return _Verb(LOG_DELIVERY.format(verb=verb, when=when), change, SELECT_DELIVERY)


VERBS = {
    "pause": _schedule_verb("pause", PAUSE, PAUSABLE),
    "resume": _schedule_verb("resume", RESUME, RESUMABLE),
    "run": _schedule_verb("run", REQUEST_RUN, RUNNABLE),
    "cancel_item": _schedule_verb("cancel", CANCEL_ITEM, ITEM_CANCELLABLE),
    "retry": _delivery_verb("retry", RETRY, RETRIABLE),
    "dismiss": _delivery_verb("dismiss", SET_ASIDE.format(state="dismissed", when=DISMISSIBLE), DISMISSIBLE),
    "cancel": _delivery_verb("cancel", SET_ASIDE.format(state="cancelled", when=CANCELLABLE), CANCELLABLE),
}

# The states each delivery verb starts from, for the operator's error.
FROM_STATES = {
    "retry": ("failed", "outcome_unknown", "pending"),
    "dismiss": ("failed", "outcome_unknown"),
    "cancel": ("pending", "outcome_unknown", "failed"),
}


class OperatorStore:
    def __init__(self, db: Database):
        self.db = db

    async def app(self) -> Row | None:
        return first(await self.db.all(SELECT_APP))

    async def history(
        self, name: str, since: int | None, failed: bool, limit: int
    ) -> tuple[Row | None, list[Row], list[Row]]:
        """A schedule, its runs and skips and its operator log, newest first, in one batch."""
        state, runs, log = await self.db.batch([
            (SELECT_SCHEDULE, (name,)),
            (SELECT_HISTORY, (name, since, 1 if failed else 0, limit)),
            (SELECT_SCHEDULE_LOG, (name, since, limit)),
        ])
        return first(state), runs, log

    async def explain(self, name: str, gaps: int = 20
                      ) -> tuple[Row | None, Row | None, Row | None, Row | None, list[Row]]:
        """What `why` reads, in one batch: the schedule, its last run, the run holding its lease,
        the app's ticks, and the latest gaps."""
        state, last, lease, app, gap_rows = await self.db.batch([
            (SELECT_SCHEDULE, (name,)),
            (SELECT_LAST_RUN, (name,)),
            (SELECT_LEASE_RUN, (name,)),
            (SELECT_APP, ()),
            (SELECT_GAPS, (gaps,)),
        ])
        return first(state), first(last), first(lease), first(app), gap_rows

    async def status(self, gaps: int = 20) -> tuple[Row | None, list[Row]]:
        """The app's ticks and the latest gaps, in one batch."""
        app, gap_rows = await self.db.batch([(SELECT_APP, ()), (SELECT_GAPS, (gaps,))])
        return first(app), gap_rows

    async def deliveries(self, every_state: bool = False, limit: int = 100) -> tuple[list[Row], list[Row]]:
        """The deliveries an operator may act on (or all of them), and their operator log, in one batch."""
        rows, log = await self.db.batch([
            (SELECT_EVERY_DELIVERY if every_state else SELECT_DELIVERIES, (limit,)),
            (SELECT_EVERY_DELIVERY_LOG if every_state else SELECT_DELIVERY_LOG, (limit,))])
        return rows, log

    async def change(self, verb: str, key: str, who: str, now: int) -> Change:
        """Makes the operator's change `verb` to the schedule or delivery `key` and logs it, in
        one batch: the log row only where the change happens."""
        statements = VERBS[verb]
        log_id = uuid.uuid4().hex
        _, changed, row = await self.db.batch([
            (statements.log, (key, log_id, now, who)),
            (statements.change, (key, now, who)[: _parameters(statements.change)]),
            (statements.read, (key,)),
        ])
        return Change(bool(changed), first(row))

    async def schedule(self, name: str) -> Row | None:
        return first(await self.db.all(SELECT_SCHEDULE, (name,)))

    async def backfill(self, name: str, start: int, end: int, who: str, now: int) -> Change:
        """Asks for a backfill of `name` from `start` to `end` and logs it, in one batch; the row
        it answers is the schedule's."""
        backfill_id = uuid.uuid4().hex
        _, made, row = await self.db.batch([
            (LOG_BACKFILL, (name, backfill_id, now, who, start, end, uuid.uuid4().hex)),
            (REQUEST_BACKFILL, (name, backfill_id, now, who, start, end)),
            (SELECT_SCHEDULE, (name,)),
        ])
        found = first(row)
        return Change(bool(made), found if not made else {**(found or {}), "backfill": backfill_id})

    async def cancel_backfill(self, backfill_id: str, who: str, now: int) -> Change:
        """Cancels a pending backfill and logs it, in one batch; the row it answers is the backfill's."""
        _, cancelled, row = await self.db.batch([
            (LOG_CANCEL_BACKFILL, (backfill_id, uuid.uuid4().hex, now, who)),
            (CANCEL_BACKFILL, (backfill_id, now)),
            (SELECT_BACKFILL, (backfill_id,)),
        ])
        return Change(bool(cancelled), first(row))

    async def backfills(self, name: str | None, limit: int = 100) -> list[Row]:
        return await self.db.all(SELECT_BACKFILLS, (name, limit))

    async def made(self, occurrences: list[tuple[str, int]]) -> set[tuple[str, int]]:
        """Which of the (schedule, at) were made already, as the tick's backfill step sees it."""
        from .backfills import BackfillStore

        return await BackfillStore(self.db).made(occurrences)

    async def schedules_page(self, after: str = "", name_glob: str | None = None, kind: str | None = None,
                             state: str | None = None, limit: int = 100) -> tuple[Row | None, list[Row], str | None]:
        """The app's ticks, a page of schedules in name order after `after`, each with its last run
        and the run holding its lease, and with a filter, the name it looked through SEARCHED names
        to (None where it reached the last), in one batch."""
        within = glob_range(name_glob or "*")
        ranged = name_glob is None or glob_is_its_range(name_glob)
        filtered = not ranged or kind is not None or state is not None
        page = (SELECT_SCHEDULES_PAGE, (after, name_glob, kind, state, limit, SEARCHED if filtered else None, *within))
        app, rows, *window = await self.db.batch(
            [(SELECT_APP, ()), page, *([(SCHEDULES_WINDOW, (after, SEARCHED, *within))] if filtered else [])])
        reached = window and window[0] and int(window[0][0]["n"]) >= SEARCHED
        return first(app), rows, window[0][0]["last"] if reached else None

    async def recent_runs(self, since: int | None = None, before: tuple[int, str] | None = None,
                          outcome: str | None = None, name_glob: str | None = None, limit: int = 20) -> list[Row]:
        """A page of runs and skips across schedules, the latest tick first, before the cursor
        `before` (tick_at, id), with their schedule's label."""
        tick, id = before or PAST_EVERY_RUN
        return await self.db.all(SELECT_RECENT_RUNS, (since or 0, tick, id, outcome, name_glob, limit))


def glob_range(pattern: str) -> tuple[str, str]:
    """The range of text a GLOB's matches fall in: from its literal start to past all that
    starts so (U+10FFFF sorts after every other character, in UTF-8 as in the code points)."""
    start = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
    return start, start + "\U0010ffff"


def glob_is_its_range(pattern: str) -> bool:
    """Whether a GLOB is a prefix (`remind@*`) or plain text: read through the range glob_range
    gives, which an index reads, with no filter past it to look through (plain text: the names
    that start with it)."""
    start = glob_range(pattern)[0]
    return pattern in (start, start + "*")


def _parameters(sql: str) -> int:
    """How many parameters a statement numbers (?1 to ?N): bound exactly, as D1 wants."""
    return max((int(n) for n in re.findall(r"\?(\d+)", sql)), default=0)
