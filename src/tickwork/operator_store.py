"""What an operator reads and changes: schedules, runs, deliveries, the app's ticks and gaps.

Every change is one batch of three statements: the operator log row, written only where the
row is in the state the change starts from; the change itself, under the same condition, whose
`RETURNING` rows witness that it happened; and a read of the row as the batch left it, which
says why nothing happened where nothing did. In one transaction the log row and the change
happen together or not at all, whoever races them (a tick, another operator).
"""

import json
import re
import uuid
from dataclasses import dataclass

from .database import Database, Row
from .schedule_store import ITEM_CANCELLABLE

# The app's one row: its last tick and the one before it.
SELECT_APP = "SELECT last_tick, prev_tick FROM tickwork_app WHERE id = 1"

# Every schedule (?1 a GLOB on the name, or NULL), with its last run (the latest due time a tick
# dealt with, through the runs' index on (schedule, due_at)) and the run holding its lease.
SELECT_SCHEDULES = """
SELECT s.*,
       r.id AS last_run, r.outcome AS last_outcome, r.code AS last_code, r.due_at AS last_due,
       r.tick_at AS last_tick_at, r.started_at AS last_started, r.ended_at AS last_ended,
       r.by_hand AS last_by_hand,
       l.started_at AS lease_started
FROM tickwork_schedules AS s
LEFT JOIN tickwork_runs AS r ON r.id = (
    SELECT id FROM tickwork_runs WHERE schedule = s.name ORDER BY due_at DESC, tick_at DESC LIMIT 1)
LEFT JOIN tickwork_runs AS l ON l.id = s.lease_run
WHERE ?1 IS NULL OR s.name GLOB ?1
ORDER BY s.action IS NOT NULL, s.name
"""

SELECT_SCHEDULE = "SELECT * FROM tickwork_schedules WHERE name = ?1"

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

# The deliveries an operator may act on (or, with ?1 = 1, every one kept), oldest event first,
# with their event's name and the start of its body.
OPEN_DELIVERIES = "('pending', 'failed', 'outcome_unknown')"
SELECT_DELIVERIES = f"""
SELECT d.*, e.name AS event_name, substr(e.body, 1, 200) AS body, length(e.body) AS body_length,
       e.run AS run, e.emitted_at AS emitted_at
FROM tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event
WHERE ?1 = 1 OR d.state IN {OPEN_DELIVERIES}
ORDER BY e.emitted_at, d.id LIMIT CAST(?2 AS INTEGER)
"""

# What operators did to deliveries (?1 a JSON list of ids), newest first.
SELECT_DELIVERY_LOG = """
SELECT * FROM tickwork_operator_log
WHERE delivery IN (SELECT value FROM json_each(?1)) ORDER BY at DESC
"""

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
        rows = await self.db.all(SELECT_APP)
        return rows[0] if rows else None

    async def schedules(self, name_glob: str | None = None) -> tuple[Row | None, list[Row]]:
        """The app's ticks, and every schedule (whose name matches `name_glob`) with its last run
        and the run holding its lease, in one batch."""
        app, rows = await self.db.batch([(SELECT_APP, ()), (SELECT_SCHEDULES, (name_glob,))])
        return _first(app), rows

    async def history(
        self, name: str, since: int | None, failed: bool, limit: int
    ) -> tuple[Row | None, list[Row], list[Row]]:
        """A schedule, its runs and skips and its operator log, newest first, in one batch."""
        state, runs, log = await self.db.batch([
            (SELECT_SCHEDULE, (name,)),
            (SELECT_HISTORY, (name, since, 1 if failed else 0, limit)),
            (SELECT_SCHEDULE_LOG, (name, since, limit)),
        ])
        return _first(state), runs, log

    async def explain(self, name: str, gaps: int = 20) -> tuple[Row | None, Row | None, Row | None, Row | None, list[Row]]:
        """What `why` reads, in one batch: the schedule, its last run, the run holding its lease,
        the app's ticks, and the latest gaps."""
        state, last, lease, app, gap_rows = await self.db.batch([
            (SELECT_SCHEDULE, (name,)),
            (SELECT_LAST_RUN, (name,)),
            (SELECT_LEASE_RUN, (name,)),
            (SELECT_APP, ()),
            (SELECT_GAPS, (gaps,)),
        ])
        return _first(state), _first(last), _first(lease), _first(app), gap_rows

    async def status(self, gaps: int = 20) -> tuple[Row | None, list[Row]]:
        """The app's ticks and the latest gaps, in one batch."""
        app, gap_rows = await self.db.batch([(SELECT_APP, ()), (SELECT_GAPS, (gaps,))])
        return _first(app), gap_rows

    async def deliveries(self, every_state: bool = False, limit: int = 100) -> tuple[list[Row], list[Row]]:
        """The deliveries an operator may act on (or all of them), and their operator log."""
        rows = await self.db.all(SELECT_DELIVERIES, (1 if every_state else 0, limit))
        log = await self.db.all(SELECT_DELIVERY_LOG, (json.dumps([row["id"] for row in rows]),)) if rows else []
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
        return Change(bool(changed), _first(row))


def _first(rows: list[Row]) -> Row | None:
    return rows[0] if rows else None


def _parameters(sql: str) -> int:
    """How many parameters a statement numbers (?1 to ?N): bound exactly, as D1 wants."""
    return max((int(n) for n in re.findall(r"\?(\d+)", sql)), default=0)
