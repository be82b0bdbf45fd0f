"""A calendar's skip dates: dates in its zone on which it does not run (`skip: holidays,
2026-07-04`), each kept with the named list it came from ("" for a date given on its own).

An occurrence on a skip date is not called and not missed: the tick records it skipped
`skip_date` where it comes due, a late call owed from before is called for the latest occurrence
on no skip date, counts of occurrences missed leave them out, and a backfill never makes them.
Whether a moment falls on one is read from the timing alone, a date's start found from the zone:
no statement asks.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any, Mapping

from ..times import from_datetime

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

class Dates(tuple[tuple[str, str], ...]):
    """(YYYY-MM-DD, the list it is of, or ""), sorted by date. Its hash is kept: a calendar's
    timing is a key of the tick's caches, and a thousand dates are hashed once, not at each look."""

    def __hash__(self) -> int:
        found: int | None = self.__dict__.get("hash")
        if found is None:
            found = self.__dict__["hash"] = tuple.__hash__(self)
        return found


NONE = Dates()

# Calendars naming one list share its Dates, and those of one zone its SkipDates, a bounded number.
CACHED = 1024


def dates_of(entry: Mapping[str, object]) -> Dates:
    """The skip dates an entry keeps (`skip`: date to list name), sorted; none where it keeps none."""
    kept = entry.get("skip") or {}
    return _shared(Dates(sorted(kept.items()))) if isinstance(kept, dict) and kept else NONE


def with_lists(entry: dict[str, Any], lists: Mapping[str, dict[str, str]]) -> dict[str, Any]:
    """A manifest entry whose named lists of skip dates are kept once for the app (`skip_lists`
    naming them in `lists`, the manifest's DATES), with them in its `skip` again: the list itself
    where it has no dates of its own, so that 30,000 calendars naming one list hold one dict. The
    manifest does the same at import, by a loop of its own (tickwork_build.output: no import)."""
    for name in entry.pop("skip_lists", ()):
        entry["skip"] = {**lists[name], **entry["skip"]} if "skip" in entry else lists[name]
    return entry


@lru_cache(maxsize=CACHED)
def _shared(dates: Dates) -> Dates:
    return dates


@lru_cache(maxsize=CACHED)
def skip_dates(dates: Dates, zone: str) -> SkipDates:
    """The SkipDates of `dates` read in `zone`, one instance each while it is among the most recent."""
    from .zones import zone_info

    return SkipDates(dates, zone_info(zone))


def said(day: str, source: str) -> str:
    """`2026-12-25 skipped: holidays`, or `: a skip date of its own` for a date given alone."""
    return f"{day} skipped: {source or 'a skip date of its own'}"


@dataclass(frozen=True)
class SkipDates:
    dates: Dates
    tz: ZoneInfo

    @cached_property
    def _by_day(self) -> dict[str, str]:
        return dict(self.dates)

    @cached_property
    def _days(self) -> list[str]:
        return [day for day, _ in self.dates]

    def day_of(self, at: int) -> str:
        return datetime.fromtimestamp(at / 1000, tz=timezone.utc).astimezone(self.tz).date().isoformat()

    def on(self, at: int) -> str | None:
        """Why the moment `at` (epoch ms) is skipped, where it falls on a skip date."""
        day = self.day_of(at)
        source = self._by_day.get(day)
        return None if source is None else said(day, source)

    def start_of(self, day: str) -> int:
        """The first instant of a date in the zone: a midnight repeated is its first, and one in a
        spring-forward gap read by the offset before it, the gap's end (fold 0 both)."""
        midnight = datetime.combine(date.fromisoformat(day), time(), tzinfo=self.tz)
        return from_datetime(midnight.astimezone(timezone.utc))

    def end_of(self, day: str) -> int:
        """The last ms of a date in the zone."""
        return self.start_of((date.fromisoformat(day) + timedelta(days=1)).isoformat()) - 1

    def within(self, start: int, end: int) -> list[tuple[int, int]]:
        """The skip dates from `start` to `end` (both inclusive), each as its first and last ms
        within that range."""
        days = self._days[bisect_left(self._days, self.day_of(start)):bisect_right(self._days, self.day_of(end))]
        return [(max(start, self.start_of(day)), min(end, self.end_of(day))) for day in days]

    def said_within(self, start: int, end: int) -> list[str]:
        """What each skip date from `start` to `end` says, oldest first."""
        days = self._days[bisect_left(self._days, self.day_of(start)):bisect_right(self._days, self.day_of(end))]
        return [said(day, self._by_day[day]) for day in days]
