"""One cron invocation: a tick at its scheduled time and, while the app has queues bound, one at
each 10-second mark of its minute, ending before the next minute's invocation; told without
waiting, the clock passed in."""

from types import SimpleNamespace

import pytest
from helpers import Calls, open_store, run

from tickwork import Schedule
from tickwork.app import App
from tickwork.grid import Every
from tickwork.invocation import cron_invocation, marks_ahead
from tickwork.times import DAY, MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")


class Wall:
    """The invocation's wall clock, moved on by its sleeps and by actions that take time."""

    def __init__(self, at):
        self.at = at

    def __call__(self):
        return self.at

    async def sleep(self, seconds):
        self.at += round(seconds * 1000)


def invoke(app, db, wall, cap=900, scheduled=NINE):
    return run(cron_invocation(db, app, scheduled, clock=wall, sleep=wall.sleep, cap=cap))


def test_the_marks_ahead_are_the_10_second_marks_of_the_minute_not_yet_past():
    assert marks_ahead(NINE, NINE + 300) == [NINE + k * 10 * SECOND for k in range(1, 6)]
    assert marks_ahead(NINE, NINE + 25 * SECOND) == [NINE + 30 * SECOND, NINE + 40 * SECOND, NINE + 50 * SECOND]
    assert marks_ahead(NINE, NINE + 2 * MINUTE) == []


def test_an_invocation_outside_its_minute_ticks_once_and_never_waits():
    app = App("DB", (), producers={"EVENTS": "events"})
    for wall in (Wall(NINE - 15 * MINUTE), Wall(NINE + 3 * MINUTE)):  # by hand ahead, or long after
        started = wall()
        assert [r.at for r in invoke(app, open_store(), wall)] == [NINE]
        assert wall() == started


def test_while_queues_are_bound_a_cron_run_ticks_again_at_each_10_second_mark():
    app = App("DB", (), producers={"EVENTS": "events"})
    wall = Wall(NINE + 300)  # the invocation begins a little after its scheduled time
    reports = invoke(app, open_store(), wall)
    assert [r.at for r in reports] == [NINE + k * 10 * SECOND for k in range(6)]
    assert wall() < NINE + MINUTE


def test_without_queues_a_cron_run_ticks_once():
    reports = invoke(App("DB", ()), open_store(), Wall(NINE + 300))
    assert [r.at for r in reports] == [NINE]


def test_a_mark_passed_while_the_tick_before_it_ran_is_left_out():
    wall = Wall(NINE)

    async def slow():
        wall.at += 25 * SECOND

    app = App("DB", (Schedule("slow", Every(MINUTE), slow),), producers={"EVENTS": "events"})
    db = open_store()
    invoke(App("DB", app.schedules), db, Wall(NINE - MINUTE), scheduled=NINE - MINUTE)
    reports = invoke(app, db, wall)
    assert [r.at for r in reports] == [NINE, NINE + 30 * SECOND, NINE + 40 * SECOND, NINE + 50 * SECOND]


def test_schedules_due_at_a_mark_run_at_that_mark():
    census = Schedule("census", Every(MINUTE), Calls())
    app = App("DB", (census,), producers={"EVENTS": "events"})
    db = open_store()
    invoke(App("DB", app.schedules), db, Wall(NINE - 50 * SECOND), scheduled=NINE - 50 * SECOND)  # due 08:59:10 + 1 min
    invoke(app, db, Wall(NINE + 300))
    assert census.action.at == [NINE + 10 * SECOND]


def test_the_ticks_of_an_invocation_share_its_statement_cap():
    app = App("DB", (), producers={"EVENTS": "events"})
    db = open_store()
    invoke(app, db, Wall(NINE))  # the first invocation reconciles the declared set
    before = db.statements_run
    reports = invoke(app, db, Wall(NINE + MINUTE), cap=7, scheduled=NINE + MINUTE)
    assert len(reports) == 3 and db.statements_run - before <= 7


def test_schedules_the_app_cannot_make_from_its_manifest_fail_the_invocation_not_each_tick_in_it():
    stale = SimpleNamespace(STORE="DB", SCHEDULES=(  # written by another tickwork: no `every_ms`
        {"kind": "schedule", "name": "census", "module": "helpers", "action": "run", "source": "census.jadpo:3"},))
    with pytest.raises(KeyError, match="every_ms"):
        invoke(App.from_manifest(stale), open_store(), Wall(NINE + 300))


def test_a_backfill_leaves_each_later_mark_of_its_invocation_the_statements_of_its_tick():
    from tickwork.operator_store import OperatorStore

    census, marked = Schedule("census", Every(MINUTE), Calls()), Schedule("marked", Every(MINUTE), Calls())
    app = App("DB", (census, marked), producers={"EVENTS": "events"})
    db = open_store()
    invoke(App("DB", (census,)), db, Wall(NINE - DAY), scheduled=NINE - DAY)  # census down for a day
    invoke(App("DB", app.schedules), db, Wall(NINE - 10 * SECOND), scheduled=NINE - 10 * SECOND)  # marked due 09:00:50
    run(OperatorStore(db).backfill("census", NINE - DAY + MINUTE, NINE - 2 * MINUTE, "ana", NINE - 5 * SECOND))
    reports = invoke(app, db, Wall(NINE + 300))
    assert [r.at for r in reports] == [NINE + k * 10 * SECOND for k in range(6)]
    assert marked.action.at == [NINE + 50 * SECOND] and len(reports[0].runs) > 100  # the backfill made the most of the rest


# Found in the review of issues 8 and 9 (tests/test_defects_found_in_review.py, split by rule).


def test_a_tick_that_d1_failed_leaves_the_invocations_other_marks_ticking():
    from faults import Faulty, at
    from helpers import every

    db = Faulty(open_store(), at("probe"))  # the first tick's first read
    app = App("DB", (every(1, name="a"),), queues_bound=True)
    clock = [NINE]

    async def sleep(seconds):
        clock[0] += int(seconds * 1000)

    reports = run(cron_invocation(db, app, NINE, clock=lambda: clock[0], sleep=sleep, cap=900))
    assert [r.at for r in reports] == [NINE + k * 10_000 for k in range(1, 6)]
