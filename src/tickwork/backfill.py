"""Backfills as the operator asks for them: the occurrences a backfill of a schedule would make
(`plan`, read through the operator's store) after its checks, and where a schedule's occurrences
become its own. The tick's backfill step is tick/backfill.py (its names are still read here).
"""

import json
from dataclasses import dataclass, replace

from .errors import ScheduleError
from .store.schedules import ONE_OFF_DONE, State
from .times import iso
from .kinds import COUNTED

DRY_RUN_MOST = 1000  # occurrences an operator's command lists or counts at the most

# The tick's step, at its old path: read from tick/backfill.py when first asked for, so that the
# operator's command and the console import no tick.
_STEP = {"backfill", "BACKFILLS_A_ROUND", "ROUNDS", "LOOKAHEAD", "READS", "GIVES_WAY"}


def __getattr__(name: str):
    if name in _STEP:
        import importlib

        return getattr(importlib.import_module("tickwork.tick.backfill"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def timing_of_row(row: dict):
    """A schedule's timing from its state row, for the operator's command: a handed-over one's
    from its JSON, a declared one's from its form (what the tick keeps of it)."""
    from .app import timing_of
    from .kinds.calendar import Calendar, CronCalendar
    from .kinds.every import Every
    from .kinds.once import Once
    from .kinds.pulse import Pulse

    if row.get("timing"):
        return timing_of(json.loads(row["timing"]))
    form = row.get("form") or f"every {int(row['every_ms'])}"
    kind, _, rest = form.partition(" ")
    if kind == "every":
        return Every(int(rest))
    if kind == "pulse":
        cycle, _, intervals = rest.partition("/")
        return Pulse(int(cycle), int(intervals))
    if kind == "once":
        return Once(int(rest))
    if kind == "calendar":
        expression, zone, rules = (part.strip() for part in rest.split("|"))
        named = dict(rule.split("=") for rule in rules.split())
        return Calendar(CronCalendar(expression, zone, named["nonexistent"], named["repeated"]))
    raise ValueError(f"unknown form {form!r}")


def own_from(timing, state: State) -> int:
    """Where the occurrences become the schedule's own, not a backfill's: with a retry pending,
    the occurrence it makes again (its call's `at`; an `every:` grid's or a pulse's call names
    none, and covers the slots up to the next due time it put aside, the last of them its own),
    else the row's due time."""
    if state.retry_attempt is None or state.retry_due is None:
        return state.due_at
    at = state.retry_call.at
    if at is None and state.retry_next is not None:
        covered = timing.covered(state.retry_due, state.retry_next - 1, COUNTED)
        at = None if covered is None else covered.last
    return min(state.due_at, state.retry_due if at is None else at)


def to_backfill(timing, due: int, first_tick: int, start: int, end: int, most: int = DRY_RUN_MOST) -> list:
    """The occurrences from `start` to `end` a backfill would look at: those the schedule owed
    since the tick that first saw it (`first_tick`; a one-off moment handed over for then or
    before was owed from there too), before its due time `due` (from there on they are its
    own), at most `most`."""
    owed_from = min(first_tick + 1, timing.first_due(first_tick))
    return timing.occurrences(due, max(start, owed_from), min(end, due - 1), most)


def backfilled_once_ended(ended: str | None) -> bool:
    """Whether a schedule ended so is still backfilled: a one-off item ends with its call
    (`done`), and where that call did not succeed a backfill makes its moment again, once."""
    return ended == ONE_OFF_DONE


class Refused(ScheduleError):
    """A backfill that cannot be asked for, with its documented code (`backfill.range_invalid`,
    `backfill.schedule_removed`) and why (its message, no mend); nothing was changed. It reads
    `code: why`."""

    def __init__(self, code: str, why: str):
        super().__init__(code, why)


@dataclass(frozen=True)
class Plan:
    """What a backfill of `name` from `start` to `end` would make: of the occurrences it looks at
    (`found`, at most DRY_RUN_MOST), those without a succeeded run (`todo`), oldest first."""

    name: str
    start: int
    end: int
    found: list
    todo: list
    skipped: tuple = ()  # what the calendar's skip dates in the range say: left out, never made

    @property
    def more(self) -> bool:
        """Whether there may be more than it looked at."""
        return len(self.found) == DRY_RUN_MOST

    @property
    def made_already(self) -> int:
        return len(self.found) - len(self.todo)


def check_range(start: int | None, end: int | None, now: int, names: tuple[str, str] = ("--from", "--to")) -> None:
    """Refuses a range that is not whole, runs backwards, or reaches past `now`; `names`, what
    the operator calls its two ends."""
    first, last = names
    if start is None or end is None:
        raise Refused("backfill.range_invalid", f"a backfill needs both {first} and {last}")
    if start > end:
        raise Refused("backfill.range_invalid", f"{first} {iso(start)} is after {last} {iso(end)}")
    if end > now:
        raise Refused("backfill.range_invalid", f"{last} {iso(end)} is after now ({iso(now)}): occurrences "
                                                f"still to come are the schedule's own")


async def plan(store, now: int, name: str, start: int | None, end: int | None,
               names: tuple[str, str] = ("--from", "--to"), skip: dict | None = None) -> Plan | None:
    """What a backfill would make, read through the operator's store (`OperatorStore`), after
    its checks: None where there is no schedule `name`. `skip`: a declared calendar's skip dates,
    from its declaration (a state row keeps its form alone); a handed-over one's are its row's."""
    from .operating.words import when  # the operator's wording, which the tick never needs

    check_range(start, end, now, names)
    assert start is not None and end is not None  # check_range refuses a range without both
    row = await store.schedule(name)
    if row is None:
        return None
    if row.get("removed_at") is not None and not backfilled_once_ended(row.get("ended")):
        what = f"ended ({row['ended']})" if row.get("ended") else "no longer declared"
        raise Refused("backfill.schedule_removed", f"`{name}` is {what} since {when(int(row['removed_at']))}: "
                                                   f"there is nothing to backfill")
    timing = timing_of_row(row)
    if skip and not row.get("timing") and hasattr(timing, "skip"):
        timing = replace(timing, skip=tuple(sorted(skip.items())))
    found = to_backfill(timing, own_from(timing, State.from_row(row)), int(row["first_tick"]), start, end)
    made = await store.made([(name, call.at) for call in found])
    skipped = tuple(timing.skipped_within(start, end)) if hasattr(timing, "skipped_within") else ()
    return Plan(name, start, end, found, [call for call in found if (name, call.at) not in made], skipped)
