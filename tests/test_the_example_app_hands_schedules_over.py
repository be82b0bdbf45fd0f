"""The example app's schedules handed over at run time: a reminder per overdue todo a minute
after each census, and each customer's weekly statement at nine on Monday in the customer's zone."""

import importlib

from helpers import ticks

from tickwork import Schedule
from tickwork.grid import Every
from tickwork.times import MINUTE, utc

planning = importlib.import_module("app.domains.planning")
reporting = importlib.import_module("app.domains.reporting")


def test_each_census_hands_over_a_reminder_per_overdue_todo_a_minute_later(db, capsys):
    census = Schedule("chore_census", Every(15 * MINUTE), planning.queue_chore_census)
    ticks(db, [census], utc("2026-01-05 09:00"), utc("2026-01-05 09:15"), utc("2026-01-05 09:16"))
    printed = capsys.readouterr().out
    assert "reminder, 'water the plants' is overdue (due 09:16 UTC)" in printed
    assert "reminder, 'file the taxes' is overdue" in printed


def test_each_customer_gets_one_weekly_statement_however_often_enrolled(db, capsys):
    enroll = Schedule("enroll_customers", Every(60 * MINUTE), reporting.enroll_customers)
    ticks(db, [enroll], utc("2026-01-04 20:00"), utc("2026-01-04 21:00"), utc("2026-01-04 22:00"))
    ticks(db, [enroll], utc("2026-01-05 00:00"), utc("2026-01-05 09:00"), utc("2026-01-05 14:00"))
    statements = [line for line in capsys.readouterr().out.splitlines() if "statement for" in line]
    assert statements == [
        "reporting: statement for yukihiro, the week to 2026-01-05T00:00:00.000Z",
        "reporting: statement for ada, the week to 2026-01-05T09:00:00.000Z",
        "reporting: statement for grace, the week to 2026-01-05T14:00:00.000Z",
    ]
