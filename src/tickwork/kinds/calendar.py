"""Calendars: a cron expression read in an IANA zone, with a rule for each daylight-saving case.

croniter walks the expression over *local wall-clock* times, where there is no daylight saving;
this module alone turns each wall-clock time into the instants it names:

- a time that happens once is one instant;
- a time skipped by a spring-forward gap is, by rule `nonexistent`, the first instant after the
  gap (`shift`, the default) or nothing (`skip`);
- a time repeated by a fall-back is, by rule `repeated`, its first instant (`first`, the default)
  or both (`both`).

Several wall-clock times naming one instant (a gap's shifted times and the time after the gap)
make one occurrence. Finding the next or latest occurrence takes a step or two of croniter from
the moment asked about, never a walk over the occurrences in between; counting the occurrences
between two moments reads the fields day by day, walking only the days near a change of offset.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, cast

from . import Call, Covered, Timing
from ..times import DAY, NEVER, from_datetime
from .forms import VIXIE_DAYS, calendar_form
from .skip_dates import NONE, Dates, SkipDates, skip_dates
from .zones import zone_info

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

NONEXISTENT = ("shift", "skip")
REPEATED = ("first", "both")

# Markers kept in a run record: which rule placed the call.
SHIFTED = "nonexistent_shifted"  # its wall-clock time fell in a gap; run at the gap's end
FIRST = "repeated_first"  # its wall-clock time happened twice; this is the first
SECOND = "repeated_second"  # ... and this the second, under `repeated: both`

# No zone moves its clock by more than this at once.
_REACH = timedelta(hours=3)
_ASIDE = timedelta(seconds=1)
_EPOCH = date(1970, 1, 1)
_MS = timedelta(milliseconds=1)
_DAY = timedelta(days=1)
A_DAY = 86_400  # more than a day's occurrences, which are a minute apart at the least


def parse_cron(expression: str) -> Any:  # a croniter
    """A croniter for 5 fields, or 6 with seconds first, as `cron_syntax` accepts them; raises
    `cron_syntax.CronInvalid` (a ValueError) otherwise."""
    from croniter import croniter  # imported at first use: a Worker's cold start skips it

    from .cron_syntax import canonical, days_either

    return croniter(
        canonical(expression), datetime(2000, 1, 1), ret_type=datetime, second_at_beginning=True,
        day_or=days_either(expression),
    )


# Compiled crons and calendars are kept, a bounded number of each: a tick's due items and a
# hand-over in bulk mostly share a few crons and zones, and parsing one costs far more than a
# search. Sharing a croniter is safe: a search sets where it starts and steps without awaiting.
CACHED = 1024


@lru_cache(maxsize=CACHED)
def compiled_cron(expression: str) -> Any:
    return parse_cron(expression)


@lru_cache(maxsize=CACHED)
def cron_calendar(
    expression: str, zone: str = "UTC", nonexistent: str = "shift", repeated: str = "first"
) -> CronCalendar:
    """The CronCalendar of (cron, zone, rules), one instance each while it is among the most recent."""
    return CronCalendar(expression, zone, nonexistent, repeated)


# What counting reads of a cron (CronCalendar._fields): seconds, minutes and hours sorted, the
# times a day they name, days of month, months, days of week, and whether either day field will do.
_Fields = tuple[
    tuple[int, ...], tuple[int, ...], tuple[int, ...], int, frozenset[int], frozenset[int], frozenset[int], bool
]


@dataclass(frozen=True)
class Occurrence:
    at: int  # epoch ms
    dst: str | None = None


@dataclass(frozen=True)
class CronCalendar:
    expression: str
    zone: str = "UTC"
    nonexistent: str = "shift"
    repeated: str = "first"

    # Both made at first use, not at import: a Worker's cold start skips croniter, and its
    # import-time snapshot reads no zone file. The zone is the vendored tzdata's (zones.py).
    # The croniter is not kept here but in compiled_cron's bounded cache: kept by each of 50,000
    # declared calendars of distinct crons, croniters took an isolate 27 MB.
    @property
    def _cron(self) -> Any:
        return compiled_cron(self.expression)

    @cached_property
    def days_read_otherwise(self) -> bool:
        from .cron_syntax import days_read_otherwise

        return days_read_otherwise(self.expression)

    @cached_property
    def tz(self) -> ZoneInfo:
        return zone_info(self.zone)

    @cached_property
    def _fields(self) -> _Fields:
        """What counting reads: the values of second, minute and hour sorted, how many times a
        day they name, the values of day of month, month and day of week, and whether a day
        matching either day field will do."""
        from .cron_syntax import days_either, parse

        values = parse(self.expression)
        seconds, minute, hour, days, months, weekdays = values if len(values) == 6 else (frozenset({0}), *values)
        a_day = len(seconds) * len(minute) * len(hour)  # the times a day the fields name
        return (tuple(sorted(seconds)), tuple(sorted(minute)), tuple(sorted(hour)), a_day, days, months, weekdays,
                days_either(self.expression))

    def next_after(self, moment: int) -> Occurrence | None:
        """The first occurrence strictly after `moment` (epoch ms)."""
        last: tuple[int | None, Occurrence | None] = self.__dict__.get("_last_next", (None, None))
        asked, found = last
        if asked is not None and found is not None and asked <= moment < found.at:
            return found  # none lies between: the answer for `asked` is the answer for `moment`
        found = self._search(moment, forward=True)
        self.__dict__["_last_next"] = (moment, found)
        return found

    def latest_at_or_before(self, moment: int) -> Occurrence | None:
        """The last occurrence at or before `moment` (epoch ms)."""
        last: tuple[int | None, Occurrence | None] = self.__dict__.get("_last_latest", (None, None))
        asked, found = last
        if asked is not None and found is not None and found.at <= moment <= asked:
            return found  # none lies between: the answer for `asked` is the answer for `moment`
        found = self._search(moment, forward=False)
        self.__dict__["_last_latest"] = (moment, found)
        return found

    def _search(self, moment: int, forward: bool) -> Occurrence | None:
        instant = datetime.fromtimestamp(moment / 1000, tz=timezone.utc)
        local = instant.astimezone(self.tz).replace(tzinfo=None)
        reach = self._shift_near(instant)
        found: Callable[[int], bool]
        better: Callable[[Occurrence, Occurrence], bool]
        beyond: Callable[[datetime], bool]
        if forward:
            start = local - reach
            found = lambda at: at > moment  # noqa: E731
            better = lambda a, b: a.at < b.at  # noqa: E731
            beyond = lambda wall: wall > local + reach  # noqa: E731
        else:
            start = local + reach + _ASIDE
            found = lambda at: at <= moment  # noqa: E731
            better = lambda a, b: a.at > b.at  # noqa: E731
            beyond = lambda wall: wall < local - reach  # noqa: E731
        from croniter import CroniterBadDateError

        best: Occurrence | None = None
        self._cron.set_current(start, force=True)
        step = self._cron.get_next if forward else self._cron.get_prev
        while True:
            try:
                wall = step()
            except CroniterBadDateError:
                return best
            for occurrence in self.instants(wall):
                if found(occurrence.at) and (best is None or better(occurrence, best) or _marks(occurrence, best)):
                    best = occurrence
            if best is not None and beyond(wall):
                return best

    def count(self, start: int, end: int, most: int) -> tuple[int, int | None]:
        """How many occurrences lie from `start` to `end` (epoch ms, both inclusive), counted no
        further once past `most`, and the first of them (None where none). Where the zone keeps
        one offset, from 3 h before to 3 h after, each time the fields name is one occurrence,
        counted from the fields alone; a day near a change of offset is walked, by the rules,
        its walk bounded by what is left to count."""
        found, first = 0, None
        for begin, stop, offset in self._stretches(start, end + 1):
            if offset is None:
                count, at = self._walked(begin, stop, most + 1 - found)
            else:
                count, wall = self._named(begin + offset, stop + offset, most + 1 - found)
                at = None if wall is None else wall - offset
            found, first = found + count, at if first is None else first
            if found > most:
                break
        return found, first

    def _stretches(self, start: int, stop: int) -> Iterator[tuple[int, int, int | None]]:
        """From `start` to before `stop`, days after `start` run together: those over which the
        zone keeps one offset (ms) with it, the others with None. A day is steady where the
        offsets 3 h before its start, its end and the next day's end agree (no zone changes its
        clock twice within a day)."""
        first = datetime.fromtimestamp(start / 1000, tz=timezone.utc) - _REACH
        here, then = first.astimezone(self.tz).utcoffset(), (first + _DAY).astimezone(self.tz).utcoffset()
        sampled, run, kept = first + 2 * _DAY, start, None
        for day in range(start, stop, DAY):
            later = sampled.astimezone(self.tz).utcoffset()
            sampled += _DAY
            steady = cast(timedelta, here) // _MS if here == then == later else None
            if day > start and steady != kept:
                yield run, day, kept
                run = day
            here, then, kept = then, later, steady
        yield run, stop, kept

    def _walked(self, start: int, stop: int, most: int) -> tuple[int, int | None]:
        found, first, upcoming = 0, None, self.next_after(start - 1)
        while upcoming is not None and upcoming.at < stop and found < most:
            first = upcoming.at if first is None else first
            found, upcoming = found + 1, self.next_after(upcoming.at)
        return found, first

    def _named(self, start: int, stop: int, most: int) -> tuple[int, int | None]:
        """The wall-clock times the fields name from `start` to before `stop` (wall-clock ms
        counted from 1970-01-01 00:00), counted no further once `most` are found, and the first."""
        *_, a_day, days, months, weekdays, either = self._fields
        found, named, first, last = 0, None, start // DAY, (stop - 1) // DAY
        for day in range(first, last + 1):
            on = _EPOCH + timedelta(days=day)
            by_date, by_weekday = on.day in days, (on.weekday() + 1) % 7 in weekdays
            if on.month not in months or not ((by_date or by_weekday) if either else (by_date and by_weekday)):
                continue
            skipped = self._before(start - day * DAY) if day == first else 0
            upto = self._before(stop - day * DAY) if day == last else a_day
            if upto > skipped and named is None:
                named = day * DAY + self._time_of(skipped)
            found += upto - skipped
            if found >= most:
                break
        return found, named

    def _time_of(self, index: int) -> int:
        """The ms into a day of the `index`th of the day's times the fields name (from 0)."""
        seconds, minutes, hours, *_ = self._fields
        hour, rest = divmod(index, len(minutes) * len(seconds))
        minute, second = divmod(rest, len(seconds))
        return (hours[hour] * 3600 + minutes[minute] * 60 + seconds[second]) * 1000

    def _before(self, ms: int) -> int:
        """How many of a day's times the fields name lie before `ms` into it."""
        seconds, minutes, hours, *_ = self._fields
        hour, rest = divmod(-(-ms // 1000), 3600)  # whole seconds: the first at or after ms
        minute, second = divmod(rest, 60)
        found = bisect_left(hours, hour) * len(minutes) * len(seconds)
        if hour in hours:
            found += bisect_left(minutes, minute) * len(seconds)
            if minute in minutes:
                found += bisect_left(seconds, second)
        return found

    def instants(self, wall: datetime) -> list[Occurrence]:
        """The instants a wall-clock time names in the zone, by the calendar's rules."""
        first = wall.replace(tzinfo=self.tz, fold=0).astimezone(timezone.utc)
        second = wall.replace(tzinfo=self.tz, fold=1).astimezone(timezone.utc)
        if first == second:
            return [Occurrence(from_datetime(first))]
        if first < second:  # a fall-back repeats this time: fold 0 is the earlier instant
            if self.repeated == "both":
                return [Occurrence(from_datetime(first), FIRST), Occurrence(from_datetime(second), SECOND)]
            return [Occurrence(from_datetime(first), FIRST)]
        if self.nonexistent == "skip":  # a spring-forward gap: fold 0 lies after it, fold 1 before
            return []
        return [Occurrence(from_datetime(self._transition(second, first)), SHIFTED)]

    def _transition(self, before: datetime, after: datetime) -> datetime:
        """The instant the zone's offset changes, between `before` and `after` (UTC)."""
        offset = after.astimezone(self.tz).utcoffset()
        while after - before > _ASIDE:
            middle = before + (after - before) / 2
            if middle.astimezone(self.tz).utcoffset() == offset:
                after = middle
            else:
                before = middle
        return after.replace(microsecond=0)

    def _shift_near(self, instant: datetime) -> timedelta:
        """How far the zone's clock moves within _REACH of `instant`: near a transition, the order
        of wall-clock times and of instants can differ by that much, so the search looks that
        far beyond where it stands. Zero elsewhere."""
        offsets = [(instant + shift).astimezone(self.tz).utcoffset() for shift in (-_REACH, _REACH)]
        return abs(cast(timedelta, offsets[1]) - cast(timedelta, offsets[0]))  # an aware instant has one


@dataclass(frozen=True)
class Calendar(Timing):
    """A calendar as the tick sees it: late instead of lost, one occurrence owed at most."""

    cron: CronCalendar
    overdue: int | None = None  # ms
    skip: tuple[tuple[str, str], ...] = NONE  # dates in its zone it does not run on (skip_dates.py)
    skips_while_running = False
    coalesces = True
    forgets_absence = True

    @cached_property
    def _skip(self) -> SkipDates | None:
        return skip_dates(self.skip if isinstance(self.skip, Dates) else Dates(self.skip), self.cron.zone) \
            if self.skip else None

    def skipped_on(self, at: int) -> str | None:
        return None if self._skip is None else self._skip.on(at)

    def skipped_within(self, start: int, end: int) -> list[str]:
        """What the skip dates from `start` to `end` say, as a backfill's plan tells them."""
        return [] if self._skip is None else self._skip.said_within(start, end)

    def called_from(self, due: int) -> tuple[int, list[str]]:
        """The first occurrence from `due` (one of its occurrences) on no skip date, and what each
        skip date passed over says (`2026-12-25 skipped: holidays`), for the next due time shown."""
        passed, skip = [], self._skip
        while skip is not None and due < NEVER and (said := skip.on(due)) is not None:
            passed.append(said)
            upcoming = self.cron.next_after(skip.end_of(skip.day_of(due)))
            due = NEVER if upcoming is None else upcoming.at
        return due, passed

    @property
    def form(self) -> str:
        c = self.cron
        return calendar_form(c.expression, c.zone, c.nonexistent, c.repeated, c.days_read_otherwise)

    def first_due(self, tick: int) -> int:
        return self._next(tick)

    def owed(self, due: int, tick: int) -> Call:
        latest = self._latest_called(due, tick)
        if latest is None or latest.at < due:
            return Call(at=due)
        return Call(at=latest.at, dst=latest.dst)

    def _latest_called(self, due: int, tick: int) -> Occurrence | None:
        """The latest occurrence at or before `tick`: of those from `due` on, the latest on no skip
        date, a skip date's day passed over at a step; where all are on skip dates, the latest
        (the tick records it skipped)."""
        latest = self.cron.latest_at_or_before(tick)
        found, skip = latest, self._skip
        while skip is not None and found is not None and found.at >= due and skip.on(found.at) is not None:
            found = self.cron.latest_at_or_before(skip.start_of(skip.day_of(found.at)) - 1)
        return found if found is not None and found.at >= due else latest

    def following(self, due: int, tick: int) -> int:
        return self._next(tick)

    def occurrences(self, due: int, start: int, end: int, most: int) -> list[Call]:
        """Walked one occurrence at a time: `most` bounds the walk."""
        found: list[Call] = []
        upcoming, skip = self.cron.next_after(start - 1), self._skip
        while upcoming is not None and upcoming.at <= end and len(found) < most:
            if skip is not None and skip.on(upcoming.at) is not None:  # left out, a skip date at a step
                upcoming = self.cron.next_after(skip.end_of(skip.day_of(upcoming.at)))
                continue
            found.append(Call(at=upcoming.at, dst=upcoming.dst))
            if upcoming.at == end:
                break
            upcoming = self.cron.next_after(upcoming.at)
        return found

    def covered(self, due: int, tick: int, most: int) -> Covered | None:
        """Counted, not walked: a month of a minutely calendar costs about what an hour does."""
        latest = self._latest_called(due, tick)
        if latest is None or latest.at < due or self.skipped_on(latest.at) is not None:
            return None  # none, or all on skip dates: none is missed
        skipped = self._skipped_between(due, latest.at)
        count, first = self.cron.count(due, latest.at, most + skipped)
        count -= skipped
        first = self._first_called(first)
        return Covered(min(count, most), first, latest.at, count <= most) if count and first is not None else None

    def _skipped_between(self, start: int, end: int) -> int:
        """How many occurrences from `start` to `end` fall on skip dates, counted day by day."""
        skip = self._skip
        return 0 if skip is None else sum(self.cron.count(lo, hi, A_DAY)[0] for lo, hi in skip.within(start, end))

    def _first_called(self, first: int | None) -> int | None:
        skip = self._skip
        while skip is not None and first is not None and skip.on(first) is not None:
            upcoming = self.cron.next_after(skip.end_of(skip.day_of(first)))
            first = None if upcoming is None else upcoming.at
        return first

    def rebased(self, due: int, tick: int, was: str | None = None) -> int:
        """Where only the reading of its days changed (`was` its form before), an occurrence of
        the new reading since the kept due time is still owed, late instead of lost; the kept
        due time itself, a moment of the old reading, never is."""
        if was is not None and was + VIXIE_DAYS == self.form:
            return self._next(min(due - 1, tick))
        return self.first_due(tick)

    def _next(self, moment: int) -> int:
        upcoming = self.cron.next_after(moment)
        return upcoming.at if upcoming is not None else NEVER  # croniter looks 50 years ahead


def _marks(occurrence: Occurrence, best: Occurrence) -> bool:
    """Gap times shifted onto the instant of a time that happens are one call, marked shifted,
    whichever of them the search met first."""
    return occurrence.at == best.at and best.dst is None and occurrence.dst is not None
