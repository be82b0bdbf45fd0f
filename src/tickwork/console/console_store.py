"""What the console reads, beyond the command's statements (operator_store.py), which it reuses
for one schedule, deliveries and every change.

A page of handed-over schedules, runs or log rows is read by keyset (the last row of the page
before), through an index (runs: a tick's ids along the primary key, older ones through the index
by tick), so a page reads about a page of rows however many there are.
"""

import json
from dataclasses import dataclass
from typing import cast

from ..database import Database, Row
from ..operating.views import first as _first
from ..store.operator import (
    FAILING, IN_RANGE, NEW_SINCE, OLD_BY_TICK, OLD_SINCE, SCHEDULES_WINDOW, SCHEDULES_WITH_RUNS, SEARCH_WINDOW,
    SEARCHED, SELECT_APP, SELECT_BACKFILLS, SELECT_GAPS, SELECT_LAST_RUN, SELECT_SCHEDULE,
    SELECT_SCHEDULE_LOG, TO_SEND, WINDOW, glob_is_its_range, glob_range,
)
from ..store.app_row import HEALTH
from ..store.concurrency import UNDER_WAY_OF
from ..store.run_filters import LATEST, RunFilter, filtered_runs
from ..times import HOUR, NEVER

# Where a first page starts: bound as a float, since Pyodide hands D1 an int this large as a BigInt,
# which D1 refuses.
NEWEST = float(NEVER)

# How many schedules there are, by kind and state: the counts the triggers of migration 0021 keep
# as rows change (eight rows), not the schedules themselves.
SCHEDULE_COUNTS = "SELECT handed_over, live, paused, n FROM tickwork_schedule_counts"

# The runs and skips since ?1 of the latest ?2 at most (COUNTED), counted by outcome in one pass
# with the earliest tick counted: a day of a million runs costs a view what ?2 do, and the page
# says what it counted. A tick's ids are read newest first along the primary key; the few of other
# ids (operator_store.RUNS_SINCE), through the index by tick, ?2 at most too, are counted beside
# them rather than merged in tick order, which would sort every row read again.
COUNTED = 10_000
LATEST_SINCE = f"""
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM tickwork_runs AS r WHERE {NEW_SINCE}
               ORDER BY r.id DESC LIMIT CAST(?2 AS INTEGER))
UNION ALL
SELECT * FROM (SELECT r.outcome, r.schedule, r.tick_at, r.id FROM {OLD_BY_TICK} WHERE {OLD_SINCE}
               ORDER BY r.tick_at DESC LIMIT CAST(?2 AS INTEGER))"""
# RUN_COUNTS counts them so; the overview sums RUNS_BY_HOUR's rows of the day to the same row
# (counted_in_day), reading them once for its counts and its bars.
RUN_COUNTS = f"""
SELECT sum(outcome = 'succeeded') AS succeeded, sum(outcome = 'failed') AS failed,
       sum(outcome = 'skipped') AS skipped, count(*) AS n, min(tick_at) AS first_tick
FROM ({LATEST_SINCE})
"""

# The schedules with failed runs among those RUN_COUNTS counts (?1, ?2 the same), the latest
# failure first, ?3 at most, each with its label (a per-item schedule's name is an id) and the id of
# its latest failed run (SQLite's bare column beside max()): one lookup by name for each of the ?3.
FAILED_SINCE = f"""
SELECT f.*, s.label AS label FROM (
    SELECT schedule, count(*) AS failures, max(tick_at) AS last_failed, id AS last_run FROM ({LATEST_SINCE})
    WHERE outcome = 'failed'
    GROUP BY schedule ORDER BY last_failed DESC LIMIT CAST(?3 AS INTEGER)) AS f
LEFT JOIN tickwork_schedules AS s ON s.name = f.schedule
ORDER BY f.last_failed DESC
"""

# The runs and skips of each hour (?3 ms) since ?1, of the latest ?2 at most (CHARTED), for the
# overview's bars: the hours are counted in one pass over the rows LATEST_SINCE reads, so a week of
# them costs what its runs do, ?2 at most, and where ?2 were read the chart says back to when. The
# hour ?4 (a day ago) falls in is counted in two rows, before it and since: the overview's counts
# of the day are the sum of those since (the latest ?2 of the week, since ?4, are the latest ?2 of
# the day), so it reads its latest runs once for both, not RUN_COUNTS as well.
CHARTED = COUNTED
RUNS_BY_HOUR = f"""
SELECT (tick_at / CAST(?3 AS INTEGER)) * CAST(?3 AS INTEGER) AS hour, tick_at >= ?4 AS in_day, count(*) AS n,
       sum(outcome = 'succeeded') AS succeeded, sum(outcome = 'failed') AS failed,
       sum(outcome = 'skipped') AS skipped, min(tick_at) AS first_tick
FROM ({LATEST_SINCE}) GROUP BY 1, 2 ORDER BY 1, 2
"""

# The overview's grid: the schedules with runs among the latest ?2 (GRID_LOOKS) since ?1, those
# failing first, then the latest run first, ?3 at most (one more than it shows, to say there are
# more), each with its latest ?4 records by due time, read along the runs' index on (schedule,
# due_at) from the ?4th latest due time: a schedule's cells cost ?4 rows however long its history,
# and the schedules are found among fewer runs than the counts read, a few ticks' worth.
GRID_LOOKS = 2_000
OVERVIEW_GRID = f"""
WITH recent AS (
    SELECT schedule, max(outcome = 'failed') AS failing, max(tick_at) AS latest FROM ({LATEST_SINCE})
    GROUP BY schedule ORDER BY failing DESC, latest DESC, schedule LIMIT CAST(?3 AS INTEGER))
SELECT c.failing, c.latest, s.label AS label, s.action AS action, r.id, r.schedule, r.due_at, r.tick_at,
       r.outcome, r.code, r.attempt, r.covers, r.covers_first, r.covers_last, r.covers_more
FROM recent AS c
JOIN tickwork_runs AS r ON r.schedule = c.schedule AND r.due_at >= coalesce(
    (SELECT due_at FROM tickwork_runs WHERE schedule = c.schedule ORDER BY due_at DESC
     LIMIT 1 OFFSET CAST(?4 AS INTEGER) - 1), -1)
LEFT JOIN tickwork_schedules AS s ON s.name = c.schedule
ORDER BY c.failing DESC, c.latest DESC, c.schedule, r.due_at
"""

# Deliveries by state, each counted among the first ?1 (COUNTED) entries at most of the index that
# holds it (one holds pending and outcome-unknown ones, one failed and outcome-unknown), so that a
# backlog of one state costs the count of another no more than that: `more` where the entries
# read reached ?1, and the count is then of those (at least n). And the latest of those an
# operator should see to (?1 at most), through the index of failing ones: none of those delivered
# is read.
DELIVERY_COUNTS = " UNION ALL ".join(
    f"SELECT '{state}' AS state, count(CASE WHEN state = '{state}' THEN 1 END) AS n, count(*) >= ?1 AS more "
    f"FROM (SELECT state FROM tickwork_deliveries WHERE {among} LIMIT CAST(?1 AS INTEGER))"
    for state, among in (("pending", TO_SEND), ("failed", FAILING), ("outcome_unknown", FAILING)))
FAILING_DELIVERIES = f"""
SELECT d.id, d.state, d.attempts, d.last_error, d.updated_at, e.name AS event_name, e.run AS run
FROM tickwork_deliveries AS d INDEXED BY tickwork_deliveries_failing JOIN tickwork_events AS e ON e.id = d.event
WHERE d.{FAILING} ORDER BY d.updated_at DESC LIMIT CAST(?1 AS INTEGER)
"""

# Schedules with their last run (the command's SCHEDULES_WITH_RUNS), in name order after
# ?2 (the last name of the page before, '' for the first), ?3 at most: ?1 the state (live, paused,
# ended or all), and where a search is made, `{match}` on ?4 (a GLOB, or the text an input holds),
# with a name's or label's GLOB kept to the range ?5 to ?6 its literal start gives, which an index
# reads (a name's: NAMED_FROM). The declared ones are read through tickwork_schedules_declared_ever, those handed over
# along the primary key: a page of a million reads about a page of rows. A search by action, label
# or input, which no index serves, looks through the ?7 (SEARCHED) names after ?2 at most, where
# SEARCH_WINDOW says it stopped, so a page of it reads the same however many there are (and so
# does a page of a state few pass, FEW_IN, or of a name's GLOB past a prefix: WINDOWED).
SCHEDULE_ROWS = SCHEDULES_WITH_RUNS + """
WHERE {kind} AND {cursor} AND {match}
  AND CASE ?1 WHEN 'live' THEN s.removed_at IS NULL WHEN 'paused' THEN s.removed_at IS NULL AND s.paused = 1
              WHEN 'ended' THEN s.removed_at IS NOT NULL ELSE 1 END
ORDER BY s.name LIMIT CAST(?3 AS INTEGER)
"""
MATCHES = {
    None: "1",
    "name": "+s.name GLOB ?4",  # `+`: no bounds of the GLOB's own, which would rival NAMED_FROM's
    "label": "s.label GLOB ?4 AND s.label >= ?5 AND s.label < ?6",
    "action": "s.action GLOB ?4",
    "input": "instr(s.input, ?4) > 0",
}
WITHIN = f" AND s.name <= (SELECT max(name) FROM ({WINDOW.format(after=2, most=7)}))"
# A search by name reads one range of the index, a bound each way, which leaves the planner no
# other to choose (given two, it may take the cursor and read every name before the range): from
# the later of the cursor and the GLOB's literal start (?5) to the end of that range (?6), or of
# the window within it (SCHEDULES_WINDOW says where that stopped).
NAMED_FROM = "s.name >= max(?2 || char(0), ?5)"
NAMED_TO = " AND s.name < ?6"
NAMED_WITHIN = (f" AND s.name <= (SELECT max(name) FROM (SELECT name FROM tickwork_schedules WHERE "
                f"{IN_RANGE.format(t='', after=2, lo=5, hi=6)} ORDER BY name LIMIT CAST(?7 AS INTEGER)))")
UNINDEXED = ("action", "label", "input")
# A state that few schedules or none may be in (none paused is the common case), and a name's GLOB
# that is more than a prefix, pass few of the rows a page reads too: such a page looks through the
# window as a search by action, label or input does (WINDOWED).
FEW_IN = ("paused", "ended")


def _rows(kind: str, field: str | None, windowed: bool) -> str:
    if field == "name":
        return SCHEDULE_ROWS.format(kind=kind, cursor=NAMED_FROM,
                                    match=MATCHES[field] + (NAMED_WITHIN if windowed else NAMED_TO))
    return SCHEDULE_ROWS.format(kind=kind, cursor="s.name > ?2", match=MATCHES[field] + WITHIN * windowed)


DECLARED = {field: _rows("s.action IS NULL", field, False) for field in MATCHES}
WINDOWED = {field: _rows("s.action IS NOT NULL", field, True) for field in MATCHES}
HANDED_OVER = {field: _rows("s.action IS NOT NULL", field, field in UNINDEXED) for field in MATCHES}
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
    runs: Row  # counts: succeeded, failed, skipped, n, first_tick (RUN_COUNTS', summed from by_hour)
    deliveries: list[Row]  # counts: state, n, more (among COUNTED at most)
    failing_deliveries: list[Row]
    by_hour: list[Row]  # hour, n, failed, skipped, first_tick: of the latest CHARTED at most
    grid: list[Row]  # the grid's schedules' latest records, schedule by schedule, oldest due first

    @property
    def runs_counted_from(self) -> int | None:
        """Where COUNTED runs were counted before the day began: the earliest tick counted, else None."""
        return int(self.runs["first_tick"]) if int(self.runs["n"] or 0) >= COUNTED else None


def counted_in_day(by_hour: list[Row]) -> Row:
    """RUN_COUNTS' row, from RUNS_BY_HOUR's rows of the day."""
    day = [row for row in by_hour if row["in_day"]]
    counted = {key: sum(int(row[key] or 0) for row in day) for key in ("succeeded", "failed", "skipped", "n")}
    return {**counted, "first_tick": min((int(row["first_tick"]) for row in day), default=None)}


@dataclass(frozen=True)
class OneSchedule:
    state: Row | None
    last: Row | None
    gaps: list[Row]
    runs: list[Row]
    log: list[Row]
    backfills: list[Row]  # pending first, then the latest ended
    under_way: int = 0  # the runs under way of the concurrency key its row names, if any


class ConsoleStore:
    def __init__(self, db: Database):
        self.db = db

    async def overview(self, since: int, most: int = 10, charted_since: int | None = None,
                       grid: tuple[int, int] = (12, 24)) -> Overview:
        """What the overview shows, in one batch: runs counted since `since`, the schedules whose
        runs failed (one more than `most`, to say there are more), runs by hour since
        `charted_since`, and `grid`'s schedules (one more, to say there are more) by their latest
        due times."""
        app, gaps, health, failed, schedules, deliveries, failing, by_hour, cells = await self.db.batch([
            (SELECT_APP, ()), (SELECT_GAPS, (most,)), (HEALTH, ()), (FAILED_SINCE, (since, COUNTED, most + 1)),
            (SCHEDULE_COUNTS, ()), (DELIVERY_COUNTS, (COUNTED,)), (FAILING_DELIVERIES, (most,)),
            (RUNS_BY_HOUR, (min(charted_since or since, since), CHARTED, HOUR, since)),
            (OVERVIEW_GRID, (since, GRID_LOOKS, grid[0] + 1, grid[1])),
        ])
        declared_failing = sorted(json.loads(health[0]["failing"] or "[]")) if health else []
        return Overview(_first(app), gaps, declared_failing, failed, schedules, counted_in_day(by_hour), deliveries,
                        failing, by_hour, cells)

    async def schedules(self, field: str | None, look_for: str | None, state: str, after: str | None,
                        page: int) -> tuple[list[Row], list[Row], str | None]:
        """The declared schedules (only on the first page, `after` None), a page of those handed
        over after `after`, one more than `page` where there are more, and for a search by action,
        label or input, the name it looked through SEARCHED names to (None where it reached the
        last), in one batch. `field`: what `look_for` is looked for in (name, label or action: a
        GLOB; input: text it holds), or None."""
        ranged = field in ("name", "label")
        looked = cast(str, look_for)  # given wherever `field` is
        search = () if field is None else (look_for, *glob_range(looked)) if ranged else (look_for,)
        windowed = field in UNINDEXED or state in FEW_IN or field == "name" and not glob_is_its_range(looked)
        handed = (*search, None, None, None)[:3] + (SEARCHED,) if windowed else search
        statements = [((WINDOWED if windowed else HANDED_OVER)[field], (state, after or "", page + 1, *handed))]
        if windowed:
            statements.append((SCHEDULES_WINDOW, (after or "", SEARCHED, *search[1:])) if field == "name"
                              else (SEARCH_WINDOW, (after or "", SEARCHED)))
        if after is None:
            statements.insert(0, (DECLARED[field], (state, "", DECLARED_MOST, *search)))
        found = await self.db.batch(statements)
        declared, rows = (found[0], found[1]) if after is None else ([], found[0])
        window = found[-1][0] if windowed else None
        return declared, rows, window["last"] if window and int(window["n"]) >= SEARCHED else None

    async def schedule(self, name: str, before: tuple[int, int, str] | None, page: int,
                       now: int = 0) -> OneSchedule:
        """One schedule as `why` reads it (its state, last run and the gaps), a page of its history,
        its operator log and its backfills (as `tickwork backfills NAME` lists them), in one batch."""
        due, tick, id = before or (NEWEST, NEWEST, "\uffff")
        state, last, gaps, runs, log, backfills, going = await self.db.batch([
            (SELECT_SCHEDULE, (name,)), (SELECT_LAST_RUN, (name,)), (SELECT_GAPS, (20,)),
            (HISTORY_PAGE, (name, due, tick, id, page + 1)), (SELECT_SCHEDULE_LOG, (name, None, 20)),
            (SELECT_BACKFILLS, (name, 20)), (UNDER_WAY_OF, (name, now)),
        ])
        return OneSchedule(_first(state), _first(last), gaps, runs, log, backfills, int(going[0]["under_way"]))

    async def runs(self, before: tuple[int, str] | None, since: int, outcome: str | None,
                   name_glob: str | None, page: int) -> list[Row]:
        """Runs across schedules, newest tick first, a page after `before` (tick_at, id), each with
        its schedule's form and label, as the runs page reads them (store.run_filters)."""
        found = await filtered_runs(self.db, RunFilter(since, NEVER, outcome, name_glob), before or LATEST, page + 1)
        return found.rows

    async def log(self, before: tuple[int, str] | None, page: int) -> list[Row]:
        at, id = before or (NEWEST, "\uffff")
        return await self.db.all(LOG_PAGE, (at, id, page + 1))
