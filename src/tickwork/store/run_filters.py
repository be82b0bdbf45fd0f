"""The console's runs across schedules, filtered: by a time range, an outcome, a schedule's name,
label or action, a trace id and the text of an error, a page at a time newest tick first.

The runs a page looks at are read in tick order through an index, from the cursor (the last row
of the page before) back to the range's start: a tick's run ids along the primary key (operator's
NEW_SINCE), the few of other ids through the index by tick, and for failed runs only, their own
index (migration 0024), which holds no other. A filter no index serves (a name's, label's or
action's GLOB, a trace, error text, an outcome other than failed) is applied to a window of at
most SEARCHED runs a page: the page then says how far back it looked, and links on from there.
"""

from dataclasses import dataclass

from ..database import Database, Row
from ..times import NEVER
from .operator import NEW_SINCE, OLD_BY_TICK, OLD_SINCE

SEARCHED = 10_000  # runs a page with a filter no index serves looks through at most
FAILED = "failed"
LATEST = (float(NEVER), "\uffff")  # a cursor past every run: bound as a float, as D1 takes no BigInt

# ?1 the range's start (0 for any), ?2 and ?3 the cursor (tick_at, id), exclusive, ?4 the range's
# end (exclusive), ?5 the window (how many runs looked at, each kind of id), ?6 how many rows at
# most (a page and one); ?7 an outcome, ?8 a GLOB on the name, ?9 on the label, ?10 on the action
# (a declared schedule's is its name), ?11 a trace, ?12 text the error's code or detail holds
# (lower case), each or NULL.
BEFORE = "(r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4"
NEW_WINDOW = f"""SELECT * FROM tickwork_runs AS r
WHERE {NEW_SINCE} AND r.id < min(max('z' || printf('%012x', CAST(?2 AS INTEGER)), ?3),
                                 'z' || printf('%012x', CAST(?4 AS INTEGER))) AND {BEFORE}
ORDER BY r.id DESC LIMIT CAST(?5 AS INTEGER)"""
OLD_WINDOW = f"""SELECT * FROM {OLD_BY_TICK} WHERE {OLD_SINCE} AND {BEFORE}
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?5 AS INTEGER)"""
FAILED_WINDOW = f"""SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_failed
WHERE r.outcome = 'failed' AND r.tick_at >= ?1 AND {BEFORE}
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?5 AS INTEGER)"""
NOTHING = "SELECT * FROM tickwork_runs WHERE id = ''"  # no run: the failed runs' index holds every id

# Where each window stopped, if it was full: its last run; the page looked at every run after the
# later of those, and shows none before it (the other window's older runs are the next page's).
RUN_WINDOWS = """WITH new AS MATERIALIZED ({new}), old AS MATERIALIZED ({old}),
stop AS MATERIALIZED (SELECT tick_at, id FROM (
    SELECT * FROM (SELECT tick_at, id FROM new ORDER BY tick_at DESC, id DESC LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1)
    UNION ALL
    SELECT * FROM (SELECT tick_at, id FROM old ORDER BY tick_at DESC, id DESC LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1))
  ORDER BY tick_at DESC, id DESC LIMIT 1)"""
RUN_MATCHED = """
  (?7 IS NULL OR r.outcome = ?7) AND (?8 IS NULL OR r.schedule GLOB ?8) AND (?9 IS NULL OR s.label GLOB ?9)
  AND (?10 IS NULL OR IFNULL(s.action, r.schedule) GLOB ?10) AND (?11 IS NULL OR r.trace = ?11)
  AND (?12 IS NULL OR instr(lower(IFNULL(r.code, '') || ' ' || IFNULL(r.detail, '')), ?12) > 0)"""
RUN_PAGE = """{windows}
SELECT r.*, s.form AS form, s.label AS label, s.action AS action
FROM (SELECT * FROM new UNION ALL SELECT * FROM old) AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
LEFT JOIN stop ON (r.tick_at, r.id) < (stop.tick_at, stop.id)
WHERE stop.id IS NULL AND {matched}
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?6 AS INTEGER)
"""
# The window's end alone, in the page's batch: only where a filter no index serves looks.
RUN_STOP = "{windows}\nSELECT tick_at, id FROM stop"

EVERY_ID = RUN_WINDOWS.format(new=NEW_WINDOW, old=OLD_WINDOW)
FAILED_ONLY = RUN_WINDOWS.format(new=FAILED_WINDOW, old=NOTHING)
SELECT_FILTERED_RUNS = RUN_PAGE.format(windows=EVERY_ID, matched=RUN_MATCHED)
SELECT_FILTERED_FAILED = RUN_PAGE.format(windows=FAILED_ONLY, matched=RUN_MATCHED)
SELECT_RUNS_STOP = RUN_STOP.format(windows=EVERY_ID)
SELECT_FAILED_STOP = RUN_STOP.format(windows=FAILED_ONLY)


@dataclass(frozen=True)
class RunFilter:
    """What the runs page shows: ticks from `start` to before `end` (epoch ms), and each filter or None."""

    start: int
    end: int
    outcome: str | None = None
    name: str | None = None  # GLOBs
    label: str | None = None
    action: str | None = None
    trace: str | None = None
    error: str | None = None  # text the error's code or detail holds, any case

    @property
    def windowed(self) -> bool:
        """Whether a filter no index serves is in it: the page looks through SEARCHED runs at most."""
        return any(value is not None for value in (self.name, self.label, self.action, self.trace, self.error)) or (
            self.outcome not in (None, FAILED))

    def parameters(self, before: tuple[float, str], most: int) -> tuple[object, ...]:
        window = SEARCHED if self.windowed else most
        return (self.start, before[0], before[1], float(self.end), window, most, self.outcome, self.name, self.label,
                self.action, self.trace, self.error.lower() if self.error is not None else None)


@dataclass(frozen=True)
class FilteredRuns:
    rows: list[Row]  # `most` at most, newest tick first
    stop: tuple[int, str] | None  # where a window filled before the page: looked no further back


async def filtered_runs(db: Database, runs: RunFilter, before: tuple[float, str], most: int) -> FilteredRuns:
    """The runs `runs` shows after the cursor `before` (tick_at, id), `most` at most, in one batch."""
    failed = runs.outcome == FAILED
    statements = [(SELECT_FILTERED_FAILED if failed else SELECT_FILTERED_RUNS, runs.parameters(before, most))]
    if runs.windowed:
        statements.append((SELECT_FAILED_STOP if failed else SELECT_RUNS_STOP, runs.parameters(before, most)[:5]))
    found = await db.batch(statements)
    stop = found[1][0] if runs.windowed and found[1] else None
    return FilteredRuns(found[0], (int(stop["tick_at"]), str(stop["id"])) if stop is not None else None)
