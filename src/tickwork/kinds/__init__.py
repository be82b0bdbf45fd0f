"""The contract each kind of schedule meets: when it is due, and what call a due tick owes."""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True)
class Call:
    """What one call is for. `at` is a calendar's moment (epoch ms); `n` and `i` a pulse's share;
    `dst` the daylight-saving rule that placed a calendar's call, where one did."""

    at: int | None = None
    n: int | None = None
    i: int | None = None
    dst: str | None = None
    input: object = None  # what a schedule handed over at run time was handed over with


@dataclass(frozen=True)
class Covered:
    """The occurrences one call covers: how many (`exact` False where there were more than the
    bound asked for, and `count` that bound), the first and the last, the one the call is for."""

    count: int
    first: int
    last: int
    exact: bool = True


class Timing(ABC):
    #: Held by an unfinished run: True to skip the due call (recorded `running`), False to keep
    #: it owed until the run ends, so that it is made late instead of lost.
    skips_while_running: bool = True
    #: A call owed for longer than this (ms) is dropped, recorded as skipped `overdue`.
    overdue: int | None = None
    #: Entries of one action owing the same moment make one call between them.
    coalesces: bool = False
    #: Removed and declared again, it owes nothing from before: its due time starts afresh.
    forgets_absence: bool = False

    @property
    def every_ms(self) -> int:
        """The interval kept in the state row's `every_ms`; 0 where the kind has none."""
        return 0

    @property
    @abstractmethod
    def form(self) -> str:
        """What the timing is, as kept in the state row: a changed form moves the due time."""

    @abstractmethod
    def first_due(self, tick: int) -> int:
        """The due time of a schedule seen for the first time by the tick at `tick`."""

    def first_due_from(self, tick: int, starts: int | None) -> int:
        """The first due time, seen first at `tick`, that makes no call before `starts` (`starts:`,
        `starts=`): its first moment at or after it. A start already past changes nothing."""
        if starts is None or starts <= tick:
            return self.first_due(tick)
        return self.first_due(starts - 1)

    @abstractmethod
    def owed(self, due: int, tick: int) -> Call:
        """The one call owed by a tick at or past `due`: missed calls collapse into it."""

    @abstractmethod
    def following(self, due: int, tick: int) -> int:
        """The due time after a tick at or past `due` has dealt with it."""

    def slot(self, due: int, tick: int) -> int:
        """The moment the call owed at `tick` is for, where `owed` names none (a handed-over
        schedule's `call.at`): missed moments collapse into the latest."""
        return due

    def skipped_on(self, at: int) -> str | None:
        """Why the occurrence at `at` is not called (a calendar's skip date, `2026-12-25 skipped:
        holidays`); None where it is called."""
        return None

    def called_from(self, due: int) -> tuple[int, list[str]]:
        """The first due time from `due` (one of its due times) that is called, and what each one
        passed over says: `due` itself, where none is skipped (a calendar's skip dates are)."""
        return due, []

    def rebased(self, due: int, tick: int, was: str | None = None) -> int:
        """The due time once the form changed from `was` (None where the schedule was removed
        and is declared again): nothing is owed for the old form."""
        return self.first_due(tick)

    def occurrences(self, due: int, start: int, end: int, most: int) -> list[Call]:
        """The calls of the occurrences from `start` to `end` (both inclusive), oldest first, at
        most `most`, each with its `at`; `due` is the kept due time (an `every:` grid's anchor)."""
        return []

    def covered(self, due: int, tick: int, most: int) -> Covered | None:
        """The occurrences from `due` to `tick` the one call owed at `tick` covers, counted to
        `most` at the most; None where there are none."""
        found = self.occurrences(due, due, tick, most)
        if not found:
            return None
        # an occurrence's call always names its moment
        first, latest = cast(int, found[0].at), cast(int, found[-1].at)
        last = latest if len(found) < most else self._latest(due, tick)
        return Covered(len(found), first, last, last == latest)  # the bound itself is exact

    def _latest(self, due: int, tick: int) -> int:
        call = self.owed(due, tick)
        return self.slot(due, tick) if call.at is None else call.at


# Occurrences walked one by one (a calendar's) are counted this far at the most: a month of a
# minutely calendar is not walked.
COUNTED = 100


class Owing:
    """What timings owe at one tick, and their next due times: entries of one form and due time
    (a thousand calendars across fifty zones may be fifty forms) are worked out once a tick."""

    def __init__(self, tick: int):
        self.tick = tick
        self._owed: dict[tuple[Timing, int], Call] = {}
        self._following: dict[tuple[Timing, int], int] = {}
        self._covered: dict[tuple[Timing, int], Covered | None] = {}

    def owed(self, timing: Timing, due: int) -> Call:
        key = (timing, due)
        if key not in self._owed:
            self._owed[key] = timing.owed(due, self.tick)
        return self._owed[key]

    def following(self, timing: Timing, due: int) -> int:
        key = (timing, due)
        if key not in self._following:
            self._following[key] = timing.following(due, self.tick)
        return self._following[key]

    def covered(self, timing: Timing, due: int) -> Covered | None:
        """What the call owed covers, where more than one occurrence."""
        key = (timing, due)
        if key not in self._covered:
            call = self.owed(timing, due)
            # a call for its due time itself covers that one alone: nothing more is worked out
            found = None if call.at is not None and call.at <= due else timing.covered(due, self.tick, COUNTED)
            self._covered[key] = found if found is not None and found.count > 1 else None
        return self._covered[key]


def waits_while_held(overlap: str | None, skips_while_running: bool) -> bool:
    """The one overlap rule the tick and the words read: whether a due time the schedule's previous
    run still holds waits for its end (`buffer`) rather than being skipped `running` (`skip`);
    unset, the kind's own (its Timing's `skips_while_running`)."""
    return not skips_while_running if overlap is None else overlap == "buffer"


def runs_beside(overlap: str | None) -> bool:
    """`overlap: allow`: a due time the previous run still holds runs anyway, side by side, each
    (schedule, at) claimed once; no kind has it as its own rule."""
    return overlap == "allow"
