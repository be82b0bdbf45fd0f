"""The console and the command read one view of a schedule (tickwork.operating.views): of one row
they state the same rule, the same lease and the same state, whichever screen an operator opens.
Each test here failed while the two worked the row out apart (issue 24, "the drifts")."""

import re
from html import unescape

import pytest

from console_fixtures import ask
from helpers import calendar, every, lose_a_run, lost_run

from tickwork.app import App
from tickwork.operating.views import LIFE
from tickwork.times import HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")
DAILY = calendar("0 9 * * *", name="daily", overdue=HOUR)
DAILY_ENTRY = {"kind": "calendar", "name": "daily", "cron": "0 9 * * *", "zone": "UTC", "overdue_ms": HOUR,
               "nonexistent": "shift", "repeated": "first", "source": "src/app/daily.py:3"}


def fact(page_html: str, name: str) -> str:
    """What a schedule's page says against `name` (its <dt>), as a person reads it."""
    found = re.search(rf"<dt>{name}</dt><dd>(.*?)</dd>", page_html, re.S)
    assert found is not None, page_html
    return " ".join(unescape(re.sub(r"<[^>]+>", "", found.group(1))).split())


def test_the_console_states_a_declared_calendar_s_overdue_rule_as_why_does(app):
    # A declared row keeps no `timing`: the rule's `overdue` is its declaration's.
    app.tick([DAILY], NINE)
    app.manifest(DAILY_ENTRY)
    _, why, _ = app.run("why", "daily", now=NINE + MINUTE)
    assert "overdue after 1 hour" in why["rule"]
    page = ask(app.db, "GET", "/ops/schedule?name=daily", now=NINE + MINUTE,
               app=App("DB", (DAILY,), console={"prefix": "/ops"}))
    assert fact(page.body, "rule") == why["rule"]


def test_the_console_s_schedules_list_states_a_declared_calendar_s_overdue_as_the_command_s_does(app):
    app.tick([DAILY], NINE)
    app.manifest(DAILY_ENTRY)
    _, listed, _ = app.run("schedules", now=NINE + MINUTE)
    [timing] = [s["timing"] for s in listed["schedules"] if s["name"] == "daily"]
    assert timing == "0 9 * * * in UTC, overdue after 1 hour"
    page = ask(app.db, "GET", "/ops/schedules", now=NINE + MINUTE, app=App("DB", (DAILY,), console={"prefix": "/ops"}))
    assert timing in " ".join(unescape(re.sub(r"<[^>]+>", " ", page.body)).split())


def _three_states(app):
    """`census` live, `tidy` paused, `gone` removed by a deploy."""
    census, tidy, gone = every(1, "census"), every(1, "tidy"), every(1, "gone")
    app.tick([census, tidy, gone], NINE)
    app.tick([census, tidy], NINE + MINUTE)
    assert app.run("pause", "tidy", "--who", "ops", now=NINE + MINUTE)[0] == 0
    return (census, tidy)


@pytest.mark.parametrize("name, alias", [("live", "active"), ("ended", "removed")])
def test_the_command_s_old_state_words_are_aliases_of_the_one_vocabulary(app, name, alias):
    _three_states(app)
    listed = {word: [s["name"] for s in app.run("schedules", "--state", word, now=NINE + MINUTE)[1]["schedules"]]
              for word in (name, alias)}
    assert listed[name] == listed[alias] != []


@pytest.mark.parametrize("state", LIFE)
def test_the_command_and_the_console_list_the_same_schedules_in_each_state(app, state):
    declared = _three_states(app)
    by_command = [s["name"] for s in app.run("schedules", "--state", state, now=NINE + MINUTE)[1]["schedules"]]
    page = ask(app.db, "GET", f"/ops/schedules?state={state}", now=NINE + MINUTE,
               app=App("DB", declared, console={"prefix": "/ops"}))
    by_console = re.findall(r'<a href="/ops/schedule\?name=(\w+)" class="id">', page.body)
    assert by_console == by_command != []


def test_a_lease_that_lapsed_is_lapsed_on_the_console_as_in_why(app):
    census = every(1, "census")
    app.tick([census], NINE)
    lose_a_run(app.db, "census", NINE + MINUTE, NINE + 2 * MINUTE, until=NINE + 3 * MINUTE)
    later = NINE + 5 * MINUTE
    _, why, _ = app.run("why", "census", now=later)
    assert any("the next tick records it failed `lease_expired`" in note for note in why["notes"])
    page = ask(app.db, "GET", "/ops/schedule?name=census", now=later,
               app=App("DB", (census,), console={"prefix": "/ops"}))
    running = fact(page.body, "running")
    assert running.startswith(f"{lost_run(NINE + MINUTE)}, lease lapsed 2026-03-02 09:03 UTC (2 min ago)")
    assert running.endswith("the next tick records it failed `lease_expired`")


def test_a_paused_schedule_a_deploy_removed_is_not_said_to_skip_its_due_times_on_either(app):
    census, gone = every(1, "census"), every(1, "gone")
    app.tick([census, gone], NINE)
    assert app.run("pause", "gone", "--who", "ops", now=NINE)[0] == 0
    app.tick([census], NINE + MINUTE)
    _, why, _ = app.run("why", "gone", now=NINE + MINUTE)
    assert why["paused"] and not [note for note in why["notes"] if note.startswith("paused")]
    page = ask(app.db, "GET", "/ops/schedule?name=gone", now=NINE + MINUTE,
               app=App("DB", (census,), console={"prefix": "/ops"}))
    assert "<dt>ended</dt>" in page.body and "<dt>paused</dt>" not in page.body


def test_a_utc_calendar_s_next_due_is_shown_in_utc_alone(app):
    # Its zone is UTC: the page adds no line "in its zone" below a time already in UTC.
    app.tick([DAILY], NINE)
    page = ask(app.db, "GET", "/ops/schedule?name=daily", now=NINE + MINUTE,
               app=App("DB", (DAILY,), console={"prefix": "/ops"}))
    assert fact(page.body, "next due").startswith("2026-03-03 09:00 UTC (in 23 h 59 min)")
    assert 'class="zone"' not in page.body


def test_a_lease_lapses_at_its_time_on_both_as_in_the_tick(app):
    # The tick ends a run whose lease_until <= its time: at that very time both say lapsed.
    census = every(1, "census")
    app.tick([census], NINE)
    lose_a_run(app.db, "census", NINE + MINUTE, NINE + 2 * MINUTE, until=NINE + 3 * MINUTE)
    at = NINE + 3 * MINUTE
    _, why, _ = app.run("why", "census", now=at)
    assert any("the next tick records it failed `lease_expired`" in note for note in why["notes"])
    _, listed, _ = app.run("schedules", now=at)
    assert listed["schedules"][0]["running"]["expired"] is True
    page = ask(app.db, "GET", "/ops/schedule?name=census", now=at, app=App("DB", (census,), console={"prefix": "/ops"}))
    assert ", lease lapsed 2026-03-02 09:03 UTC (now)" in fact(page.body, "running")
