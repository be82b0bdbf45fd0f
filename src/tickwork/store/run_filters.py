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

SEARCHED = 2_000  # runs a page with a filter no index serves looks through at most
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

RUN_MATCHED = """
  (?7 IS NULL OR w.outcome = ?7) AND (?8 IS NULL OR w.schedule GLOB ?8) AND (?9 IS NULL OR s.label GLOB ?9)
  AND (?10 IS NULL OR IFNULL(s.action, w.schedule) GLOB ?10) AND (?11 IS NULL OR w.trace = ?11)
  AND (?12 IS NULL OR instr(lower(IFNULL(w.code, '') || ' ' || IFNULL(w.detail, '')), ?12) > 0)"""
# A page: each kind of id's window read in its own order, the runs the filters pass picked from it
# as it is read, stopping at ?6 (so a filter many runs pass reads about a page), the two merged.
RUN_ARM = """SELECT * FROM (SELECT w.*, s.form AS form, s.label AS label, s.action AS action
FROM ({window}) AS w LEFT JOIN tickwork_schedules AS s ON s.name = w.schedule
WHERE {matched} LIMIT CAST(?6 AS INTEGER))"""
RUN_PAGE = """{new}
UNION ALL
{old}
ORDER BY tick_at DESC, id DESC LIMIT CAST(?6 AS INTEGER)"""
# Where the windows stopped, where one filled: the later of their last runs. The page shows none
# before it (the other window's older runs are the next look's), and the next look starts there,
# so each run is looked at once across pages. In the page's batch, only where a filter no index
# serves looks.
RUN_STOP = """SELECT tick_at, id FROM (
    SELECT * FROM (SELECT tick_at, id FROM ({new}) LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1)
    UNION ALL
    SELECT * FROM (SELECT tick_at, id FROM ({old}) LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1))
ORDER BY tick_at DESC, id DESC LIMIT 1"""

SELECT_FILTERED_RUNS = RUN_PAGE.format(new=RUN_ARM.format(window=NEW_WINDOW, matched=RUN_MATCHED),
                                       old=RUN_ARM.format(window=OLD_WINDOW, matched=RUN_MATCHED))
SELECT_FILTERED_FAILED = (f"SELECT * FROM ({RUN_ARM.format(window=FAILED_WINDOW, matched=RUN_MATCHED)})\n"
                          "ORDER BY tick_at DESC, id DESC")
SELECT_RUNS_STOP = RUN_STOP.format(new=NEW_WINDOW, old=OLD_WINDOW)
SELECT_FAILED_STOP = f"SELECT tick_at, id FROM ({FAILED_WINDOW}) LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1"


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

    def parameters(self, before: tuple[float, str], most: int, window: int | None = None) -> tuple[object, ...]:
        window = window or (SEARCHED if self.windowed else most)
        return (self.start, before[0], before[1], float(self.end), window, most, self.outcome, self.name, self.label,
                self.action, self.trace, self.error.lower() if self.error is not None else None)


@dataclass(frozen=True)
class FilteredRuns:
    rows: list[Row]  # `most` at most, newest tick first
    stop: tuple[int, str] | None  # where a window filled before the page: looked no further back


async def filtered_runs(db: Database, runs: RunFilter, before: tuple[float, str], most: int) -> FilteredRuns:
    """The runs `runs` shows after the cursor `before` (tick_at, id), `most` at most, in one batch."""
    failed = runs.outcome == FAILED
    bound = runs.parameters(before, most)
    statements = [(SELECT_FILTERED_FAILED if failed else SELECT_FILTERED_RUNS, bound)]
    if runs.windowed:
        statements.append((SELECT_FAILED_STOP if failed else SELECT_RUNS_STOP, bound[:5]))
    found = await db.batch(statements)
    if not runs.windowed or not found[1]:
        return FilteredRuns(found[0], None)
    stop = (int(found[1][0]["tick_at"]), str(found[1][0]["id"]))
    return FilteredRuns([row for row in found[0] if (row["tick_at"], row["id"]) >= stop], stop)
