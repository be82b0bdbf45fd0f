"""The day-of-month and day-of-week fields combine as in Vixie cron: when either field starts with
`*` (`*` itself, or `*/2`) a day must match both; when neither does, it matches either. Checked
against a brute-force oracle over every minute of two months, forwards and backwards."""

import pytest
from harness import send_statement
from helpers import calendar, run, runs, state, ticks

from tickwork.calendars import Calendar, CronCalendar
from tickwork.cron_syntax import parse
from tickwork.per_item import Items
from tickwork.times import MINUTE, to_datetime, utc

START, END = utc("2026-01-01 00:00"), utc("2026-03-03 00:00")  # a 31-day month, February, March

EXPRESSIONS = [
    "0 9 */2 * 1",  # odd days that are Mondays: `*/2` starts with `*`
    "0 9 1-31/2 * 1",  # odd days or Mondays: neither field starts with `*`
    "0 9 * * 1",  # Mondays
    "0 9 *,5 * 1",  # Mondays: `*,5` starts with `*` (every day, the 5th among them)
    "0 9 13 * 5",  # the 13th or Fridays
    "0 9 */2 * *",  # odd days
    "0 9 1 * */2",  # the 1st when it is a Sunday, Tuesday, Thursday or Saturday
    "0 9 1-31 * 1",  # every day: the day of month matches each one, and either field will do
    "0 9 1,15 * 0-7",  # every day, the day of week naming each one
    "0 9 * * 0-7",  # every day
    "0 9 */1 * */1",  # every day
    "0 9 13 * */5",  # the 13th when it is a Sunday or a Friday
    "30 8 */10 * MON-FRI",  # the 1st, 11th, 21st and 31st that are weekdays
]


def oracle(expression: str) -> list[int]:
    """Vixie cron's rule, minute by minute: its `DOM_STAR` and `DOW_STAR` flags are a field
    starting with `*`."""
    minute, hour, dom, month, dow = parse(expression)
    _, _, day_of_month, _, day_of_week = expression.split()
    starred = day_of_month.startswith("*") or day_of_week.startswith("*")

    def matches(moment: int) -> bool:
        at = to_datetime(moment)
        days = (at.day in dom, at.isoweekday() % 7 in dow)
        return (at.minute in minute and at.hour in hour and at.month in month
                and (all(days) if starred else any(days)))

    return [moment for moment in range(START, END, MINUTE) if matches(moment)]


def forwards(expression: str) -> list[int]:
    calendar, found, moment = CronCalendar(expression), [], START - MINUTE
    while (upcoming := calendar.next_after(moment)) is not None and upcoming.at < END:
        found.append(moment := upcoming.at)
    return found


def backwards(expression: str) -> list[int]:
    calendar, found, moment = CronCalendar(expression), [], END - MINUTE
    while (latest := calendar.latest_at_or_before(moment)) is not None and latest.at >= START:
        found.append(latest.at)
        moment = latest.at - MINUTE
    return found[::-1]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_a_calendar_comes_due_at_the_moments_vixie_cron_runs_it(expression):
    expected = oracle(expression)
    assert expected  # each expression comes due in the two months
    assert forwards(expression) == expected
    assert backwards(expression) == expected


def test_a_day_field_stepped_from_a_star_restricts_the_days_and_the_day_of_week_as_well():
    # odd days that are Mondays: 2026-03-09 is the first after 2026-03-02 (the 2nd, even)
    assert CronCalendar("0 9 */2 * 1").next_after(utc("2026-03-02 00:00")).at == utc("2026-03-09 09:00")


def test_day_fields_neither_starting_with_a_star_match_either():
    # odd days or Mondays: Monday 2026-03-02 though the 2nd is even
    assert CronCalendar("0 9 1-31/2 * 1").next_after(utc("2026-03-01 12:00")).at == utc("2026-03-02 09:00")


# What the release before, which read day fields as croniter does, kept for these calendars.
def as_the_release_before_stored(db, expression: str, due: int) -> None:
    """The state row and the sealed declared set as that release wrote them: the form without
    the reading of the days, the due time of the old reading."""
    old_form = f"calendar {expression} | UTC | nonexistent=shift repeated=first"
    run(db.all("UPDATE tickwork_schedules SET form = ?1, due_at = ?2 WHERE name = 'weekly'", (old_form, due)))
    run(db.all("UPDATE tickwork_app SET fingerprint = 'the release before' WHERE id = 1"))


@pytest.mark.parametrize("expression", ["0 9 */2 * 1", "0 9 1-31 * 1", "0 9 1,15 * 0-7", "0 9 13 * */5"])
def test_a_calendar_whose_days_vixie_cron_reads_otherwise_has_a_form_of_its_own(expression):
    assert Calendar(CronCalendar(expression)).form.endswith(" days=vixie")


@pytest.mark.parametrize("expression", ["0 9 * * 1", "0 9 13 * 5", "0 9 */2 * *", "0 9 *,5 * 1", "0 9 1-31 * 0-7"])
def test_a_calendar_whose_days_read_as_before_keeps_its_form(expression):
    # so that upgrading rebases none of them: a rebase forgets nothing owed only where it must
    assert Calendar(CronCalendar(expression)).form == f"calendar {expression} | UTC | nonexistent=shift repeated=first"


def test_a_calendar_whose_days_vixie_cron_reads_otherwise_is_not_called_at_the_moment_stored_before(db):
    odd_mondays = calendar("0 9 */2 * 1")
    ticks(db, [odd_mondays], utc("2026-03-02 12:00"))
    as_the_release_before_stored(db, "0 9 */2 * 1", utc("2026-03-03 09:00"))  # odd days or Mondays
    ticks(db, [odd_mondays], utc("2026-03-02 12:01"), utc("2026-03-03 09:00"), utc("2026-03-09 09:00"))
    assert odd_mondays.action.at == [utc("2026-03-09 09:00")]
    assert [r["at"] for r in runs(db, "weekly")] == [utc("2026-03-09 09:00")]


def test_a_calendar_whose_days_vixie_cron_reads_otherwise_still_owes_its_latest_occurrence_since_the_stored_due_time(db):
    daily = calendar("0 9 1-31 * 1")  # every day; the release before read Mondays
    ticks(db, [daily], utc("2026-03-01 12:00"))
    as_the_release_before_stored(db, "0 9 1-31 * 1", utc("2026-03-02 09:00"))  # Monday, then ticks stopped
    ticks(db, [daily], utc("2026-03-04 10:00"))
    assert daily.action.at == [utc("2026-03-04 09:00")]
    assert state(db, "weekly").due_at == utc("2026-03-05 09:00")


def test_a_calendar_handed_over_whose_days_vixie_cron_reads_otherwise_is_not_called_at_the_moment_stored_before(db):
    run(Items(db, lambda: utc("2026-03-02 12:00")).calendar(send_statement, {"customer": "c1"}, "0 9 */2 * 1"))
    [handed_over] = [row["name"] for row in run(db.all("SELECT name FROM tickwork_schedules"))]
    old_form = "calendar 0 9 */2 * 1 | UTC | nonexistent=shift repeated=first"  # odd days or Mondays
    run(db.all("UPDATE tickwork_schedules SET form = ?1, due_at = ?2", (old_form, utc("2026-03-03 09:00"))))
    ticks(db, [], utc("2026-03-03 09:00"), utc("2026-03-09 09:00"))
    assert [r["at"] for r in runs(db, handed_over)] == [utc("2026-03-09 09:00")]
