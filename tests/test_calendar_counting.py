"""Issue 23: a calendar's missed occurrences are counted from its fields, day by day, walking only
the days near a change of offset. The count, its first and its last must be what walking the
occurrences one by one finds (`Timing.covered`, one search each), by every daylight-saving rule,
up to the bound of 100 and past it."""

from datetime import datetime, timedelta, timezone

import pytest

from tickwork.calendars import Calendar, CronCalendar
from tickwork.timing import COUNTED, Timing
from tickwork.times import DAY, HOUR, MINUTE, from_datetime, utc
from tickwork.zones import zone_info

ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago",
         "Africa/Casablanca", "Pacific/Chatham", "Asia/Tehran"]
EXPRESSIONS = ["*/5 * * * *", "30 2 * * *", "0 */6 * * *", "15 0-3 * * *", "0 0 * * *", "45 23 * * 0",
               "0 9 1,15 * 1", "*/20 0-3 * * 6", "0 1 29 2 *", "30 */30 * * * *"]
RULES = [("shift", "first"), ("skip", "both")]
SPANS = [DAY + 7 * MINUTE, 40 * DAY]


def changes(zone: str, year: int) -> list[int]:
    """The hours of `year` (epoch ms, UTC) just before the zone changes its offset."""
    tz, start = zone_info(zone), datetime(year, 1, 1, tzinfo=timezone.utc)
    hours = [start + timedelta(hours=k) for k in range(366 * 24)]
    return [from_datetime(a) for a, b in zip(hours, hours[1:]) if a.astimezone(tz).utcoffset() != b.astimezone(tz).utcoffset()]


def walked(calendar: Calendar, due: int, tick: int):
    return Timing.covered(calendar, due, tick, COUNTED)


@pytest.mark.parametrize("zone", ZONES)
def test_counting_a_calendars_occurrences_finds_what_walking_them_finds(zone):
    starts = [utc("2026-01-10 05:17")] + [change + shift for change in changes(zone, 2026)
                                          for shift in (-2 * HOUR - 30 * MINUTE, HOUR)]
    differ = []
    for expression in EXPRESSIONS:
        for nonexistent, repeated in RULES:
            calendar = Calendar(CronCalendar(expression, zone, nonexistent, repeated))
            for due in starts:
                for span in SPANS:
                    counted, expected = calendar.covered(due, due + span, COUNTED), walked(calendar, due, due + span)
                    if counted != expected:
                        differ.append((expression, nonexistent, repeated, due, span, counted, expected))
    assert differ == []


def test_exactly_the_bound_is_exact_and_one_past_it_is_more():
    minutely = Calendar(CronCalendar("* * * * *", "Europe/Berlin"))
    due = utc("2026-03-29 00:00")  # the hour before Berlin's spring-forward at 01:00 UTC
    assert minutely.covered(due, due + 99 * MINUTE, COUNTED) == walked(minutely, due, due + 99 * MINUTE)
    hundred = minutely.covered(due, due + 99 * MINUTE, COUNTED)
    assert (hundred.count, hundred.exact) == (100, True)
    more = minutely.covered(due, due + 100 * MINUTE, COUNTED)
    assert (more.count, more.exact, more.last) == (100, False, due + 100 * MINUTE)


def test_a_spring_forward_gap_counts_its_times_by_the_rule_and_a_shifted_one_with_the_time_after_it():
    """Berlin, 2026-03-29: 02:00 to 03:00 does not happen; under `shift` a gap time is one call
    at 03:00 (01:00 UTC), with 03:00 itself where that is named; under `skip` it is none."""
    start, end = utc("2026-03-28 23:00"), utc("2026-03-29 02:00")  # 00:00 to 04:00 in Berlin

    def counted(expression, nonexistent="shift"):
        return Calendar(CronCalendar(expression, "Europe/Berlin", nonexistent)).covered(start, end, COUNTED).count

    assert (counted("30 * * * *"), counted("30 * * * *", "skip")) == (4, 3)  # 00:30 01:30 (02:30 as 03:00) 03:30
    assert counted("0,30 * * * *") == counted("0,30 * * * *", "skip") == 7  # 02:00 and 02:30 are 03:00's


def test_a_fall_back_counts_a_repeated_time_once_or_twice_by_its_rule():
    """Berlin, 2026-10-25: 02:00 to 03:00 happens twice."""
    hourly = "0 * * * *"
    start, end = utc("2026-10-24 22:00"), utc("2026-10-25 03:00")  # 00:00 to 04:00 in Berlin
    first = Calendar(CronCalendar(hourly, "Europe/Berlin")).covered(start, end, COUNTED)
    both = Calendar(CronCalendar(hourly, "Europe/Berlin", repeated="both")).covered(start, end, COUNTED)
    assert (first.count, both.count) == (5, 6)
