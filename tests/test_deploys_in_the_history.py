"""Deploys in the history (issue 25): each change of the declared set is marked once, by the tick
that notices it, with what was added, removed and changed, and the Worker's version where a
version-metadata binding gives it."""

import asyncio
import json

from helpers import Calls, every, run, tick_at

from tickwork import Schedule
from tickwork.grid import Every
from tickwork.model import Retry
from tickwork.store.deploys import LAST_DECLARED, Deploys
from tickwork.times import DAY, MINUTE, utc

NINE = utc("2026-12-02 09:00")


def deploys(db):
    return run(Deploys(db).page())


def deploy_a():
    return [every(5, "census"), every(60, "billing"), every(15, "digest")]


def deploy_b():
    billing = Schedule("billing", Every(60 * MINUTE), Calls(), retry=Retry(3, MINUTE))
    return [every(5, "census"), billing, every(10, "reminders")]


def test_a_first_deploy_is_marked_with_every_schedule_added(db):
    run(tick_at(db, deploy_a(), NINE))
    [marker] = deploys(db)
    assert (marker.at, marker.added, marker.removed, marker.changed) == (NINE, ["billing", "census", "digest"], [], {})
    assert not marker.first


def test_a_deploy_adding_removing_and_changing_one_each_is_one_marker_with_those_three(db):
    run(tick_at(db, deploy_a(), NINE))
    run(tick_at(db, deploy_a(), NINE + MINUTE))
    run(tick_at(db, deploy_b(), NINE + 2 * MINUTE))
    run(tick_at(db, deploy_b(), NINE + 3 * MINUTE))
    b, a = deploys(db)
    assert (b.at, b.added, b.removed, b.changed) == (NINE + 2 * MINUTE, ["reminders"], ["digest"], {"billing": ["retry"]})
    assert a.at == NINE


def test_a_changed_timing_is_told_as_its_form(db):
    run(tick_at(db, [every(5, "census")], NINE))
    run(tick_at(db, [every(10, "census")], NINE + MINUTE))
    assert deploys(db)[0].changed == {"census": ["form"]}


def test_a_changed_start_is_told_as_its_start(db):
    run(tick_at(db, [every(5, "census")], NINE))
    later = Schedule("census", Every(5 * MINUTE), Calls(), starts=NINE + DAY)
    run(tick_at(db, [later], NINE + MINUTE))
    assert deploys(db)[0].changed == {"census": ["starts"]}


def test_a_changed_grace_or_skip_list_is_told_as_its_overdue_or_skip(db):
    from tickwork.kinds.calendar import Calendar, cron_calendar

    def nine(**declared):
        return [Schedule("census", Every(5 * MINUTE, **declared), Calls()),
                Schedule("payroll", Calendar(cron_calendar("0 9 * * *", "UTC", "shift", "both"), **declared), Calls())]

    run(tick_at(db, nine(), NINE))
    run(tick_at(db, nine(overdue=10 * MINUTE), NINE + MINUTE))
    assert deploys(db)[0].changed == {"census": ["overdue"], "payroll": ["overdue"]}
    later = [nine()[0], Schedule("payroll", Calendar(cron_calendar("0 9 * * *", "UTC", "shift", "both"),
                                                     skip=(("2026-12-25", ""),)), Calls())]
    run(tick_at(db, later, NINE + 2 * MINUTE))
    assert deploys(db)[0].changed == {"census": ["overdue"], "payroll": ["overdue", "skip"]}


def test_ticks_with_the_declared_set_unchanged_mark_nothing(db):
    for minute in range(5):
        run(tick_at(db, deploy_a(), NINE + minute * MINUTE))
    assert len(deploys(db)) == 1


def test_the_workers_version_is_kept_where_the_binding_gives_it(db):
    version = {"id": "7c1e9a40-1d2b-4c3e-9f00-5a6b7c8d9e0f", "tag": "v42", "timestamp": "2026-12-02T09:00:00Z"}
    run(tick_at(db, deploy_a(), NINE, settings={"tickwork:version": version}))
    [marker] = deploys(db)
    assert (marker.version.id, marker.version.tag, marker.version.timestamp) == tuple(version.values())


def test_a_store_ticked_before_markers_were_kept_has_its_first_marker_say_so(db):
    run(tick_at(db, deploy_a(), NINE))
    run(db.all("DELETE FROM tickwork_deploys"))
    run(db.all("UPDATE tickwork_app SET fingerprint = 'the release before' WHERE id = 1"))
    run(tick_at(db, deploy_b(), NINE + MINUTE))
    [marker] = deploys(db)
    assert marker.first and (marker.added, marker.removed, marker.changed) == ([], [], {})


class BothReadFirst:
    """The store, holding each tick at the read of the last marker's set till both made it: two
    ticks racing after a deploy, each having read the set as it was before either wrote."""

    def __init__(self, db, arrived: list, both: asyncio.Event):
        self.db, self.arrived, self.both = db, arrived, both

    def __getattr__(self, name):
        return getattr(self.db, name)

    async def batch(self, statements):
        results = await self.db.batch(statements)
        if any(sql == LAST_DECLARED for sql, _ in statements):
            self.arrived.append(1)
            if len(self.arrived) == 2:
                self.both.set()
            await self.both.wait()
        return results


def test_two_ticks_racing_after_a_deploy_record_one_marker(db):
    run(tick_at(db, deploy_a(), NINE))

    arrived_at_once: list = []

    async def racing():
        both = asyncio.Event()
        return await asyncio.gather(*(tick_at(BothReadFirst(db, arrived_at_once, both), deploy_b(), NINE + MINUTE)
                                      for _ in range(2)))

    run(racing())
    assert len(arrived_at_once) == 2
    b, _ = deploys(db)
    assert (b.added, b.removed, b.changed) == (["reminders"], ["digest"], {"billing": ["retry"]})
    assert len(deploys(db)) == 2


def test_housekeeping_keeps_the_markers_within_the_retention_and_always_the_newest(db):
    retention = 30 * DAY
    sets = [deploy_a(), deploy_b()]
    for day in range(40):
        run(tick_at(db, sets[day % 2], NINE + day * DAY, retention=retention))
    run(tick_at(db, sets[0], NINE + 100 * DAY, retention=retention))  # a pass: all but its own are past
    run(tick_at(db, sets[0], NINE + 100 * DAY + 2 * 3600_000, retention=retention))
    [kept] = deploys(db)
    assert kept.at == NINE + 100 * DAY
    assert json.loads(run(db.all(LAST_DECLARED))[0]["declared"]).keys() == {"billing", "census", "digest"}


async def noop() -> None:
    pass


def test_a_declared_set_too_long_for_d1_is_marked_without_being_kept_whole(db):
    """D1 refuses a string past 2,000,000 bytes, as the store here does: a set of 30,000 declared
    schedules still ticks, its marker keeping the names added that fit and not the set, so the
    next deploy is told apart from nothing, as a first marker is."""
    many = [Schedule(f"chore_{k:05}_of_the_nightly_reports", Every(DAY + (k % 600) * MINUTE), noop)
            for k in range(30_000)]
    run(tick_at(db, many, NINE))
    run(tick_at(db, many[:-1], NINE + MINUTE))
    first, second = run(db.all("SELECT declared, added, removed, first FROM tickwork_deploys ORDER BY id"))
    assert first["declared"] == "null" and 0 < len(json.loads(first["added"])) < 30_000
    assert len(first["added"]) <= 900_000
    assert (json.loads(second["removed"]), second["first"]) == ([], 1)  # what came before is not known
    assert [dict(row) for row in run(db.all(LAST_DECLARED))] == [{"declared": "null"}]
