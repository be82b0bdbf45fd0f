"""The cron syntax tickwork accepts, in the build and in the Worker alike: the 5 and 6 fields the
docs (how-to/declare-schedules.md, "Cron expressions") document, and none of croniter's extensions."""

import pytest
from test_build import calendar_with, codes, problems, project

from tickwork.calendars import CronCalendar
from tickwork.cron_syntax import CronInvalid, canonical, parse
from tickwork.times import utc


@pytest.mark.parametrize(
    "expression, values",
    [
        ("0 9 * * 1", "0 9 * * 1"),
        ("*/15 9-17 * * 1-5", "0,15,30,45 9,10,11,12,13,14,15,16,17 * * 1,2,3,4,5"),
        ("0 0 1,15 * *", "0 0 1,15 * *"),
        ("0-10/5 0 * * *", "0,5,10 0 * * *"),
        ("0 0 * JAN-mar/2 *", "0 0 * 1,3 *"),  # month names, in any case
        ("0 0 * * MON-fri", "0 0 * * 1,2,3,4,5"),  # day names
        ("0 0 * * 7", "0 0 * * 0"),  # 7 is Sunday, as 0 is
        ("0 0 * * 5-7", "0 0 * * 0,5,6"),
        ("0 0 * * 0-7", "0 0 * * *"),
        ("5-5 * * * *", "5 * * * *"),
        ("30 0 9 * * 1", "30 0 9 * * 1"),  # seconds first
        ("  0\t9 *  * 1 ", "0 9 * * 1"),  # spaces and tabs between fields
    ],
)
def test_the_standard_fields_are_read_as_cron_reads_them(expression, values):
    assert canonical(expression) == values


@pytest.mark.parametrize(
    "expression, words",
    [
        ("R * * * *", "minute field's `R`"),  # croniter: a random minute, drawn anew at each parse
        ("H 9 * * *", "minute field's `H`"),
        ("0 0 L * *", "day-of-month field's `L`"),
        ("0 0 15W * *", "day-of-month field's `15W`"),
        ("0 0 * * 1#2", "day-of-week field's `1#2`"),
        ("0 0 ? * 1", "day-of-month field's `?`"),
        ("@daily", "this has 1"),
        ("0 0 1 1 * 2030", "day-of-week field's `2030`"),
        ("0 0 1 1 * * 2030", "this has 7"),
        ("5/15 * * * *", "steps from a single value"),
        ("50-10 * * * *", "runs backwards"),
        ("*-5 * * * *", "not a range"),
        ("*/0 * * * *", "step `0`"),
        ("61 * * * *", "minute field's `61` is not a number from 0 to 59"),
        ("0 24 * * *", "hour field's `24`"),
        ("0 0 0 * *", "day-of-month field's `0`"),
        ("0 0 * 13 *", "month field's `13`"),
        ("0 0 * * 8", "day-of-week field's `8`"),
        ("MON 0 * * *", "minute field's `MON`"),  # names only where they name something
        ("1,,2 * * * *", "minute field's ``"),
        ("١٥ * * * *", "minute field's `١٥`"),  # Arabic-Indic digits are not cron's
        ("１５ * * * *", "minute field's `１５`"),  # nor are full-width ones
        ("0" * 4301 + " * * * *", "(4301 characters)"),
        ("0 9 *\u00a0* 1", "this has 4"),  # fields apart by spaces and tabs only
    ],
)
def test_anything_else_is_refused_naming_the_field_and_token(expression, words):
    with pytest.raises(CronInvalid) as refused:
        parse(expression)
    assert words in str(refused.value)
    assert refused.value.code == "schedule.cron_invalid" and refused.value.mend


def test_the_worker_refuses_an_expression_the_build_would():
    calendar = CronCalendar("R 9 * * 1")
    with pytest.raises(CronInvalid):
        calendar.next_after(utc("2026-01-05 00:00"))


@pytest.mark.parametrize(
    "expression, after, expected",
    [
        ("5-5 * * * *", "2026-01-05 09:06", "2026-01-05 10:05"),  # croniter alone: every minute
        ("0 0 * * 3-3", "2026-01-05 00:00", "2026-01-07 00:00"),  # croniter alone: every day
        ("0 0 * * 7", "2026-01-05 00:00", "2026-01-11 00:00"),
    ],
)
def test_a_calendar_comes_due_when_its_fields_say_not_when_croniter_misreads_them(expression, after, expected):
    assert CronCalendar(expression).next_after(utc(after)).at == utc(expected)


@pytest.mark.parametrize("cron", ["R 9 * * 1", "0 0 L * *", "5/15 9 * * *", "@weekly", "١٥ 9 * * 1"])
def test_a_cron_the_readme_does_not_document_is_cron_invalid_with_a_mend(tmp_path, cron):
    [problem] = problems(project(tmp_path, calendar_with(f'cron: "{cron}"')))
    assert (problem.code, problem.name, problem.line) == ("schedule.cron_invalid", "weekly_report", 2)
    assert problem.mend


def test_a_cron_of_thousands_of_digits_is_cron_invalid(tmp_path):
    files = calendar_with(f'cron: "{"1" * 4301} 9 * * 1"')
    assert codes(project(tmp_path, files)) == [("schedule.cron_invalid", "weekly_report", 2)]


def test_day_fields_that_must_both_match_and_never_do_are_a_cron_that_never_comes_due(tmp_path):
    # the 31st of February on the days of `*/2`: both must match, as in Vixie cron
    [problem] = problems(project(tmp_path, calendar_with('cron: "0 0 31 2 */2"')))
    assert (problem.code, problem.line) == ("schedule.cron_invalid", 2)
    assert "never comes due" in problem.message
