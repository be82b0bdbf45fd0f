"""The console and the command read one view of a schedule (tickwork.operating.views): of one row
they state the same rule, the same lease and the same state, whichever screen an operator opens.
Each test here failed while the two worked the row out apart (issue 24, "the drifts")."""

import re
from html import unescape

from console_fixtures import ask
from helpers import calendar
from test_the_operators_command import app  # noqa: F401  (the fixture)

from tickwork.app import App
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


def test_the_console_states_a_declared_calendar_s_overdue_rule_as_why_does(app):  # noqa: F811
    # A declared row keeps no `timing`: the rule's `overdue` is its declaration's.
    app.tick([DAILY], NINE)
    app.manifest(DAILY_ENTRY)
    _, why, _ = app.run("why", "daily", now=NINE + MINUTE)
    assert "overdue after 1 hour" in why["rule"]
    page = ask(app.db, "GET", "/ops/schedule?name=daily", now=NINE + MINUTE,
               app=App("DB", (DAILY,), console={"prefix": "/ops"}))
    assert fact(page.body, "rule") == why["rule"]


def test_the_console_s_schedules_list_states_a_declared_calendar_s_overdue_as_the_command_s_does(app):  # noqa: F811
    app.tick([DAILY], NINE)
    app.manifest(DAILY_ENTRY)
    _, listed, _ = app.run("schedules", now=NINE + MINUTE)
    [timing] = [s["timing"] for s in listed["schedules"] if s["name"] == "daily"]
    assert timing == "0 9 * * * in UTC, overdue after 1 hour"
    page = ask(app.db, "GET", "/ops/schedules", now=NINE + MINUTE, app=App("DB", (DAILY,), console={"prefix": "/ops"}))
    assert timing in " ".join(unescape(re.sub(r"<[^>]+>", " ", page.body)).split())
