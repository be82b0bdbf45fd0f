"""Daylight saving, checked against an oracle that shares nothing with the runtime but the zone
files it reads (the vendored tzdata's, as the Worker has them, through `tickwork.zones`).

The oracle walks every UTC minute around each transition of ten years, turns it into wall-clock
time with zoneinfo (UTC to local only), and matches the wall-clock time against the expression
with its own small cron matcher. Wall-clock times seen twice are repeated; times never seen are
in a gap. From that it says which instants the rules call for; the runtime must name exactly
those, with the rule it applied, whichever way it is asked.
"""

from collections import defaultdict
from datetime import datetime, timedelta, timezone
from functools import cache

import pytest

from tickwork.calendars import FIRST, SECOND, SHIFTED, CronCalendar
from tickwork.times import from_datetime
from tickwork.zones import zone_info

ZONES = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago"]
EXPRESSIONS = ["30 2 * * *", "0,30 * * * *", "15 0-3 * * *", "0 0 * * *", "45 1 * * 0-6"]
RULES = [("shift", "first"), ("skip", "both"), ("shift", "both"), ("skip", "first")]
YEARS = range(2026, 2036)
MINUTE = timedelta(minutes=1)
WINDOW = timedelta(hours=8)  # either side of each transition; farther out, the table tests


def matches(expression: str, wall: datetime) -> bool:
    """A cron matcher for lists, ranges, steps and stars: the oracle's own, not croniter's."""
    minute, hour, day, month, weekday = expression.split()
    return all(
        value in _values(field, low, high)
        for field, value, low, high in (
            (minute, wall.minute, 0, 59),
            (hour, wall.hour, 0, 23),
            (day, wall.day, 1, 31),
            (month, wall.month, 1, 12),
            (weekday, (wall.weekday() + 1) % 7, 0, 6),
        )
    )


@cache
def _values(field: str, low: int, high: int) -> set[int]:
    values = set()
    for part in field.split(","):
        part, _, step = part.partition("/")
        if part == "*":
            start, end = low, high
        elif "-" in part:
            start, end = map(int, part.split("-"))
        else:
            start = end = int(part)
        values.update(range(start, end + 1, int(step or 1)))
    return values


@cache
def transitions(zone) -> list[datetime]:
    """Every change of the zone's UTC offset in the ten years, to the hour, found by walking."""
    found = []
    moment = datetime(YEARS[0], 1, 1, tzinfo=timezone.utc)
    end = datetime(YEARS[-1] + 1, 1, 1, tzinfo=timezone.utc)
    offset = moment.astimezone(zone).utcoffset()
    while moment < end:
        moment += timedelta(hours=1)
        now = moment.astimezone(zone).utcoffset()
        if now != offset:
            found.append(moment)
            offset = now
    return found


@cache
def wall_clock(zone_name: str, start: datetime, end: datetime):
    """Each wall-clock minute shown between `start` and `end` (with margin), with the UTC minutes
    that show it; and each wall-clock minute a gap skips, with the first instant after the gap."""
    zone = zone_info(zone_name)
    seen = defaultdict(list)
    gaps = []
    moment = start - timedelta(hours=4)
    previous = None
    while moment < end + timedelta(hours=4):
        wall = moment.astimezone(zone).replace(tzinfo=None)
        seen[wall].append(moment)
        if previous is not None and wall - previous > MINUTE:
            skipped = previous + MINUTE
            while skipped < wall:
                gaps.append((skipped, moment))
                skipped += MINUTE
        previous = wall
        moment += MINUTE
    return seen, gaps


def expected(expression, zone, start, end, nonexistent, repeated) -> dict[int, str | None]:
    """The instants in [start, end) the rules call for, each with the rule that placed it."""
    seen, gaps = wall_clock(zone, start, end)
    instants: dict[datetime, str | None] = {}
    for wall, shown in seen.items():
        if not matches(expression, wall):
            continue
        if len(shown) == 1:
            instants.setdefault(shown[0], None)
        else:
            first, second = sorted(shown)
            instants[first] = FIRST
            if repeated == "both":
                instants[second] = SECOND
    if nonexistent == "shift":
        for wall, after in gaps:
            if matches(expression, wall):
                instants[after] = SHIFTED
    return {from_datetime(i): rule for i, rule in instants.items() if start <= i < end}


def windows():
    for name in ZONES:
        zone = zone_info(name)
        for change in transitions(zone):
            yield name, change - WINDOW, change + WINDOW


@pytest.mark.parametrize("zone", ZONES)
def test_the_oracle_sees_about_twenty_transitions_in_ten_years(zone):
    assert 18 <= len(transitions(zone_info(zone))) <= 22


@pytest.mark.parametrize("nonexistent, repeated", RULES)
@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_every_occurrence_across_ten_years_of_transitions_is_as_the_rules_say(expression, nonexistent, repeated):
    for zone, start, end in windows():
        calendar = CronCalendar(expression, zone, nonexistent, repeated)
        want = expected(expression, zone, start, end, nonexistent, repeated)
        got = {}
        moment = from_datetime(start) - 1
        while (upcoming := calendar.next_after(moment)) is not None and upcoming.at < from_datetime(end):
            got[upcoming.at] = upcoming.dst
            moment = upcoming.at
        assert got == want, (zone, start)
        ordered = sorted(want)
        for earlier, later in zip(ordered, ordered[1:]):
            assert calendar.latest_at_or_before(later).at == later
            assert calendar.latest_at_or_before(later - 1).at == earlier
