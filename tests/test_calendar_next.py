"""When a calendar next comes due: (expression, zone, after, expected next), in UTC literals."""

import pytest

from tickwork.calendars import FIRST, SECOND, SHIFTED, Calendar, CronCalendar
from tickwork.times import DAY, MINUTE, utc

CASES = [
    # expression, zone, after (UTC), next (UTC)
    ("0 9 * * 1", "UTC", "2026-01-05 08:59", "2026-01-05 09:00"),
    ("0 9 * * 1", "UTC", "2026-01-05 09:00", "2026-01-12 09:00"),
    ("0 9 * * 1", "Europe/Berlin", "2026-01-04 12:00", "2026-01-05 08:00"),  # CET, +1
    ("0 9 * * 1", "Europe/Berlin", "2026-07-05 12:00", "2026-07-06 07:00"),  # CEST, +2
    ("0 9 * * 1", "America/New_York", "2026-01-04 12:00", "2026-01-05 14:00"),
    ("0 12 * * 1-5", "UTC", "2026-01-09 12:00", "2026-01-12 12:00"),  # Friday to Monday
    ("0 6 1 * *", "UTC", "2026-01-01 06:00", "2026-02-01 06:00"),
    ("*/5 * * * *", "UTC", "2026-01-01 00:02", "2026-01-01 00:05"),
    ("0 0 29 2 *", "UTC", "2026-01-01 00:00", "2028-02-29 00:00"),  # leap days only
    ("0 0 1,15 * 3", "UTC", "2026-01-01 00:00", "2026-01-07 00:00"),  # day or weekday
    ("15 0 9 * * 1", "UTC", "2026-01-05 09:00", "2026-01-05 09:00:15"),  # seconds first
    ("0 0 * * *", "Asia/Kolkata", "2026-01-01 00:00", "2026-01-01 18:30"),  # +05:30
    ("0 0 * * *", "Asia/Kathmandu", "2026-01-01 00:00", "2026-01-01 18:15"),  # +05:45
    ("0 0 * * *", "Pacific/Kiritimati", "2026-01-01 00:00", "2026-01-01 10:00"),  # +14
    ("0 12 31 12 *", "Pacific/Pago_Pago", "2026-06-01 00:00", "2026-12-31 23:00"),  # -11
    # spring forward, Berlin 2026-03-29: 02:00-02:59 never happens; shifted to 03:00 CEST
    ("30 2 * * *", "Europe/Berlin", "2026-03-28 12:00", "2026-03-29 01:00"),
    # fall back, Berlin 2026-10-25: 02:30 happens at 00:30 and 01:30 UTC; the first by default
    ("30 2 * * *", "Europe/Berlin", "2026-10-24 12:00", "2026-10-25 00:30"),
    ("30 2 * * *", "Europe/Berlin", "2026-10-25 00:30", "2026-10-26 01:30"),
    # Lord Howe moves by half an hour: 02:00-02:29 never happens on 2026-10-04
    ("15 2 * * *", "Australia/Lord_Howe", "2026-10-03 12:00", "2026-10-03 15:30"),
    # Santiago springs forward at midnight, 2026-09-06: 00:00-00:59 never happens
    ("0 0 * * *", "America/Santiago", "2026-09-05 12:00", "2026-09-06 04:00"),
]


@pytest.mark.parametrize("expression, zone, after, expected", CASES)
def test_next_occurrence(expression, zone, after, expected):
    assert CronCalendar(expression, zone).next_after(utc(after)).at == utc(expected)


@pytest.mark.parametrize("expression, zone, after, expected", CASES)
def test_the_latest_occurrence_at_or_before_an_occurrence_is_itself(expression, zone, after, expected):
    calendar = CronCalendar(expression, zone)
    assert calendar.latest_at_or_before(utc(expected)).at == utc(expected)
    assert calendar.latest_at_or_before(utc(expected) - 1).at <= utc(after)


def test_a_time_in_a_spring_forward_gap_runs_at_the_first_instant_after_it_by_default():
    occurrence = CronCalendar("30 2 * * *", "Europe/Berlin").next_after(utc("2026-03-28 12:00"))
    assert (occurrence.at, occurrence.dst) == (utc("2026-03-29 01:00"), SHIFTED)


def test_a_time_in_a_spring_forward_gap_is_skipped_under_nonexistent_skip():
    calendar = CronCalendar("30 2 * * *", "Europe/Berlin", nonexistent="skip")
    assert calendar.next_after(utc("2026-03-28 12:00")).at == utc("2026-03-30 00:30")


def test_a_repeated_time_runs_once_at_the_first_by_default():
    calendar = CronCalendar("30 2 * * *", "Europe/Berlin")
    first = calendar.next_after(utc("2026-10-24 12:00"))
    assert (first.at, first.dst) == (utc("2026-10-25 00:30"), FIRST)
    assert calendar.next_after(first.at).at == utc("2026-10-26 01:30")


def test_a_repeated_time_runs_twice_under_repeated_both():
    calendar = CronCalendar("30 2 * * *", "Europe/Berlin", repeated="both")
    first = calendar.next_after(utc("2026-10-24 12:00"))
    second = calendar.next_after(first.at)
    assert [(o.at, o.dst) for o in (first, second)] == [
        (utc("2026-10-25 00:30"), FIRST),
        (utc("2026-10-25 01:30"), SECOND),
    ]


def test_shifted_gap_times_and_the_time_after_the_gap_are_one_occurrence():
    calendar = CronCalendar("*/20 * * * *", "Europe/Berlin")
    moments = []
    moment = utc("2026-03-29 00:30")
    for _ in range(4):
        moment = calendar.next_after(moment).at
        moments.append(moment)
    # 01:40 CET, then 02:00, 02:20, 02:40 and 03:00 CEST are all 01:00 UTC, then 03:20 CEST
    assert moments == [utc("2026-03-29 00:40"), utc("2026-03-29 01:00"), utc("2026-03-29 01:20"), utc("2026-03-29 01:40")]


@pytest.mark.parametrize("search", ["next_after", "latest_at_or_before"])
def test_the_one_call_for_gap_times_and_the_time_after_the_gap_is_marked_shifted(search):
    calendar = CronCalendar("*/20 * * * *", "Europe/Berlin")
    moment = {"next_after": utc("2026-03-29 00:50"), "latest_at_or_before": utc("2026-03-29 01:05")}[search]
    occurrence = getattr(calendar, search)(moment)
    assert (occurrence.at, occurrence.dst) == (utc("2026-03-29 01:00"), SHIFTED)


class CountingCron:
    """Wraps a calendar's croniter to count the steps a search takes."""

    def __init__(self, cron):
        self.cron, self.steps = cron, 0

    def set_current(self, *args, **kwargs):
        return self.cron.set_current(*args, **kwargs)

    def get_next(self):
        self.steps += 1
        return self.cron.get_next()

    def get_prev(self):
        self.steps += 1
        return self.cron.get_prev()


def steps_to_owe(calendar: Calendar, due: int, tick: int) -> int:
    counting = CountingCron(calendar.cron._cron)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(CronCalendar, "_cron", property(lambda _: counting))
        calendar.owed(due, tick)
        calendar.following(due, tick)
    return counting.steps


def test_a_month_without_ticks_costs_a_tick_no_more_croniter_steps_than_a_minute():
    def every_minute():  # each its own, so neither is told from the other's last answer
        return Calendar(CronCalendar("* * * * *", "Europe/Berlin"))

    tick = utc("2026-02-02 10:00")
    after_a_minute = steps_to_owe(every_minute(), tick - MINUTE, tick)
    after_a_month = steps_to_owe(every_minute(), tick - 30 * DAY, tick)
    assert after_a_month == after_a_minute <= 3
