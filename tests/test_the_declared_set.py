"""The declared set changes only at a deploy: a tick never works it out again (issue 15)."""

from dataclasses import dataclass

from helpers import Calls, run, tick_at

from tickwork import Schedule
from tickwork.app import App
from tickwork.declared import Declared
from tickwork.grid import Every
from tickwork.times import MINUTE, utc


@dataclass(frozen=True)
class CountedEvery(Every):
    """`every`, counting how often a tick reads its form (what the declared set's fingerprint
    is made of)."""

    reads: list = None

    @property
    def form(self) -> str:
        self.reads.append(1)
        return super().form


def counted(count: int) -> tuple[list, list[Schedule]]:
    reads: list = []
    return reads, [Schedule(f"hourly_{k}", CountedEvery(60 * MINUTE, reads=reads), Calls()) for k in range(count)]


def test_ticks_with_one_declared_set_read_each_schedules_form_once(db):
    reads, schedules = counted(50)
    declared = Declared(schedules)
    for minute in range(5):
        run(tick_at(db, declared, utc("2026-03-02 09:00") + minute * MINUTE))
    # the first tick reconciles the new rows (form and first due of each), then none reads them
    first = len(reads)
    for minute in range(5, 10):
        run(tick_at(db, declared, utc("2026-03-02 09:00") + minute * MINUTE))
    assert first <= 2 * len(schedules)
    assert len(reads) == first


def test_an_apps_declared_set_is_worked_out_once_an_isolate():
    _, schedules = counted(3)
    app = App(store=None, schedules=tuple(schedules))
    assert app.declared is app.declared
    assert app.declared.fingerprint == Declared(schedules).fingerprint


def test_a_changed_form_changes_the_fingerprint():
    before = Declared([Schedule("census", Every(15 * MINUTE), Calls())])
    after = Declared([Schedule("census", Every(30 * MINUTE), Calls())])
    assert before.fingerprint != after.fingerprint


def test_calendars_sharing_an_action_claim_their_moment_and_no_others():
    from helpers import calendar

    shared = Calls()
    declared = Declared([calendar("0 9 * * *", name="a", action=shared),
                         calendar("0 9 * * 1", name="b", action=shared),
                         calendar("0 9 * * *", name="c"),
                         Schedule("census", Every(15 * MINUTE), shared)])
    assert declared.claiming_moments == frozenset({"a", "b"})
