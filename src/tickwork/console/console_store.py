"""What the console reads, beyond the command's statements (operator_store.py), which it reuses
for one schedule, deliveries and every change.

A page of handed-over schedules, runs or log rows is read by keyset (the last row of the page
before), through an index (runs: a tick's ids along the primary key, older ones through the index
by tick), so a page reads about a page of rows however many there are.
"""

import json
import re
from dataclasses import dataclass

from ..database import Database, Row
from ..operator_store import (
    RUNS_SINCE, SCHEDULES_WITH_RUNS, SELECT_APP, SELECT_BACKFILLS, SELECT_GAPS, SELECT_LAST_RUN, SELECT_RECENT_RUNS,
    SELECT_SCHEDULE, SELECT_SCHEDULE_LOG,
)
from ..schedule_store import HEALTH
from ..times import NEVER

# Where a first page starts: bound as a float, since Pyodide hands D1 an int this large as a BigInt,
# which D1 refuses.
NEWEST = float(NEVER)

# How many schedules there are, by kind and state (every row once: the overview's counts).
SCHEDULE_COUNTS = """
SELECT action IS NOT NULL AS handed_over, removed_at IS NULL AS live, paused, count(*) AS n
FROM tickwork_schedules GROUP BY 1, 2, 3
"""

# The runs and skips since ?1, by outcome, each kind of id through what keeps it by tick
# (operator_store.RUNS_SINCE).
RUN_COUNTS = f"SELECT outcome, count(*) AS n FROM ({RUNS_SINCE}) GROUP BY outcome"

# The schedules with failed runs since ?1, the latest failure first.
FAILED_SINCE = f"""
SELECT schedule, count(*) AS failures, max(tick_at) AS last_failed FROM ({RUNS_SINCE})
WHERE outcome = 'failed'
GROUP BY schedule ORDER BY last_failed DESC LIMIT CAST(?2 AS INTEGER)
"""

# Deliveries by state, and the latest of those an operator should see to.
DELIVERY_COUNTS = "SELECT state, count(*) AS n FROM tickwork_deliveries GROUP BY state"
FAILING_DELIVERIES = """
SELECT d.id, d.state, d.attempts, d.last_error, d.updated_at, e.name AS event_name
FROM tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event
WHERE d.state IN ('failed', 'outcome_unknown') ORDER BY d.updated_at DESC LIMIT CAST(?1 AS INTEGER)
"""

# Schedules with their last run (the command's SCHEDULES_WITH_RUNS), in name order after
# ?2 (the last name of the page before, '' for the first), ?3 at most: ?1 the state (live, paused,
# ended or all), and where a search is made, `{match}` on ?4 (a GLOB, or the text an input holds),
# with a name's or label's GLOB kept to the range ?5 to ?6 its literal start gives, which an index
# reads. The declared ones are read through tickwork_schedules_declared_ever, those handed over
# along the primary key: a page of a million reads about a page of rows unless a search by action
# or input passes few of them.
SCHEDULE_ROWS = SCHEDULES_WITH_RUNS + """
WHERE {kind} AND s.name > ?2 AND {match}
  AND CASE ?1 WHEN 'live' THEN s.removed_at IS NULL WHEN 'paused' THEN s.removed_at IS NULL AND s.paused = 1
              WHEN 'ended' THEN s.removed_at IS NOT NULL ELSE 1 END
ORDER BY s.name LIMIT CAST(?3 AS INTEGER)
"""
MATCHES = {
    None: "1",
    "name": "s.name GLOB ?4 AND s.name >= ?5 AND s.name < ?6",
    "label": "s.label GLOB ?4 AND s.label >= ?5 AND s.label < ?6",
    "action": "s.action GLOB ?4",
    "input": "instr(s.input, ?4) > 0",
}
DECLARED = {field: SCHEDULE_ROWS.format(kind="s.action IS NULL", match=match) for field, match in MATCHES.items()}
HANDED_OVER = {field: SCHEDULE_ROWS.format(kind="s.action IS NOT NULL", match=match)
               for field, match in MATCHES.items()}
DECLARED_MOST = 1000  # declared schedules are a few: all of them on the first page

# A schedule's runs and skips, newest due first, a page at a time: after (?2 due_at, ?3 tick_at,
# ?4 id) of the last row shown, ?5 rows at most, through the runs' index on (schedule, due_at).
HISTORY_PAGE = """
SELECT * FROM tickwork_runs
WHERE schedule = ?1 AND due_at <= ?2 AND (due_at < ?2 OR tick_at < ?3 OR (tick_at = ?3 AND id < ?4))
ORDER BY due_at DESC, tick_at DESC, id DESC LIMIT CAST(?5 AS INTEGER)
"""

# The operator log, newest first, a page at a time after (?1 at, ?2 id), through its index on at.
LOG_PAGE = """
SELECT * FROM tickwork_operator_log WHERE at <= ?1 AND (at < ?1 OR id < ?2)
ORDER BY at DESC, id DESC LIMIT CAST(?3 AS INTEGER)
"""


@dataclass(frozen=True)
class Overview:
    app: Row | None
    gaps: list[Row]
    declared_failing: list[str]
    failed_recently: list[Row]
    schedules: list[Row]  # counts: handed_over, live, paused, n
    runs: list[Row]  # counts: outcome, n
    deliveries: list[Row]  # counts: state, n
    failing_deliveries: list[Row]


@dataclass(frozen=True)
class OneSchedule:
    state: Row | None
    last: Row | None
    gaps: list[Row]
    runs: list[Row]
    log: list[Row]
    backfills: list[Row]  # pending first, then the latest ended


class ConsoleStore:
    def __init__(self, db: Database):
        self.db = db

    async def overview(self, since: int, most: int = 10) -> Overview:
        """What the overview shows, in one batch: runs counted since `since`."""
        app, gaps, health, failed, schedules, runs, deliveries, failing = await self.db.batch([
            (SELECT_APP, ()), (SELECT_GAPS, (most,)), (HEALTH, ()), (FAILED_SINCE, (since, most)),
            (SCHEDULE_COUNTS, ()), (RUN_COUNTS, (since,)), (DELIVERY_COUNTS, ()), (FAILING_DELIVERIES, (most,)),
        ])
        declared_failing = sorted(json.loads(health[0]["failing"] or "[]")) if health else []
        return Overview(_first(app), gaps, declared_failing, failed, schedules, runs, deliveries, failing)

    async def schedules(self, field: str | None, look_for: str | None, state: str, after: str | None,
                        page: int) -> tuple[list[Row], list[Row]]:
        """The declared schedules (only on the first page, `after` None) and a page of those handed
        over after `after`, one more than `page` where there are more, in one batch. `field`: what
        `look_for` is looked for in (name, label or action: a GLOB; input: text it holds), or None."""
        search = () if field is None else (look_for, *_glob_range(look_for)) if field in ("name", "label") else (look_for,)
        handed = (HANDED_OVER[field], (state, after or "", page + 1, *search))
        if after is not None:
            return [], await self.db.all(*handed)
        declared, rows = await self.db.batch([(DECLARED[field], (state, "", DECLARED_MOST, *search)), handed])
        return declared, rows

    async def schedule(self, name: str, before: tuple[int, int, str] | None, page: int) -> OneSchedule:
        """One schedule as `why` reads it (its state, last run and the gaps), a page of its history,
        its operator log and its backfills (as `tickwork backfills NAME` lists them), in one batch."""
        due, tick, id = before or (NEWEST, NEWEST, "\uffff")
        state, last, gaps, runs, log, backfills = await self.db.batch([
            (SELECT_SCHEDULE, (name,)), (SELECT_LAST_RUN, (name,)), (SELECT_GAPS, (20,)),
            (HISTORY_PAGE, (name, due, tick, id, page + 1)), (SELECT_SCHEDULE_LOG, (name, None, 20)),
            (SELECT_BACKFILLS, (name, 20)),
        ])
        return OneSchedule(_first(state), _first(last), gaps, runs, log, backfills)

    async def runs(self, before: tuple[int, str] | None, since: int, outcome: str | None,
                   name_glob: str | None, page: int) -> list[Row]:
        """Runs across schedules, newest tick first, a page after `before` (tick_at, id), each with
        its schedule's form and label: the command's statement (operator_store.SELECT_RECENT_RUNS)."""
        tick, id = before or (NEWEST, "\uffff")
        return await self.db.all(SELECT_RECENT_RUNS, (since, tick, id, outcome, name_glob, page + 1))

    async def log(self, before: tuple[int, str] | None, page: int) -> list[Row]:
        at, id = before or (NEWEST, "\uffff")
        return await self.db.all(LOG_PAGE, (at, id, page + 1))


def _glob_range(pattern: str) -> tuple[str, str]:
    """The range of text a GLOB's matches fall in: from its literal start to past all that
    starts so (U+10FFFF sorts after every other character, in UTF-8 as in the code points)."""
    start = re.split(r"[*?\[]", pattern, maxsplit=1)[0]
    return start, start + "\U0010ffff"


def _first(rows: list[Row]) -> Row | None:
    return rows[0] if rows else None
