"""Issue 27: a Workflow run's instance is created once per claim, whatever kills the tick: a tick
killed between the instance's creation and its end's batch leaves its run to a later tick, which
neither loses the instance (it settles the run from it) nor creates a second for that claim."""

import asyncio

from faults import Faulty, each
from helpers import open_store, runs

from tickwork import Schedule, env
from tickwork.kinds.every import Every
from tickwork.model import Retry
from tickwork.testing import Workflows, tick_at
from tickwork.times import HOUR, MINUTE, utc


async def _never() -> None:
    raise AssertionError("called")


SCHEDULES = [Schedule("nightly_export", Every(HOUR), _never, retry=Retry(2, MINUTE), limit=30 * MINUTE,
                      workflow="EXPORTS")]


def ticked(at_, db, flows):
    with env.given(EXPORTS=flows):
        return asyncio.run(tick_at(SCHEDULES, utc(at_), db))


def killed_after_create():
    """The 09:00 tick created the instance, then died before its end's batch landed."""
    db, flows = open_store(), Workflows()
    ticked("2026-03-02T08:00Z", db, flows)
    try:
        ticked("2026-03-02T09:00Z", Faulty(db, each("ends")), flows)
    except Exception:
        pass
    assert len(flows.ids) == 1
    return db, flows


def test_a_tick_killed_after_the_instance_was_created_loses_it_not_a_later_tick_settles_the_run():
    db, flows = killed_after_create()
    flows.complete(flows.ids[0], {"rows": 12})
    for moment in ("2026-03-02T09:01Z", "2026-03-02T09:40Z", "2026-03-02T09:50Z"):
        ticked(moment, db, flows)
    [record] = runs(db, "nightly_export")
    assert (record["id"], record["outcome"], record["detail"]) == (flows.ids[0], "succeeded", '{"rows": 12}')
    assert len(flows.ids) == 1


def test_a_tick_killed_after_the_instance_was_created_starts_no_second_instance_while_it_goes_on():
    db, flows = killed_after_create()
    flows.running(flows.ids[0])
    for moment in ("2026-03-02T09:01Z", "2026-03-02T09:20Z", "2026-03-02T09:25Z"):  # within its 30m limit
        ticked(moment, db, flows)
    assert len(flows.ids) == 1
    assert [(r["id"], r["outcome"]) for r in runs(db, "nightly_export")] == [(flows.ids[0], "running")]


class StoppedBeforeCreating(Workflows):
    """A tick that wrote the run's row, then died before the binding created its instance."""

    async def create(self, options=None):
        raise SystemExit("the isolate was evicted")


def test_a_tick_killed_before_the_instance_was_created_fails_the_run_unstarted_and_its_retry_creates_one():
    db, flows = open_store(), Workflows()
    ticked("2026-03-02T08:00Z", db, flows)
    try:
        ticked("2026-03-02T09:00Z", db, StoppedBeforeCreating())
    except BaseException:
        pass
    for moment in ("2026-03-02T09:00:30Z", "2026-03-02T09:02Z", "2026-03-02T09:04Z"):
        ticked(moment, db, flows)
    assert [(r["outcome"], r["code"]) for r in runs(db, "nightly_export")] == [
        ("failed", "workflow_unstarted"), ("running", None)]
    assert len(flows.ids) == 1


def test_racing_ticks_create_the_instance_once_and_both_leave_one_run():
    db, flows = open_store(), Workflows()
    ticked("2026-03-02T08:00Z", db, flows)

    async def race():
        with env.given(EXPORTS=flows):
            await asyncio.gather(tick_at(SCHEDULES, utc("2026-03-02T09:00Z"), db),
                                 tick_at(SCHEDULES, utc("2026-03-02T09:00:01Z"), db))

    asyncio.run(race())
    flows.complete(flows.ids[0])
    ticked("2026-03-02T09:01Z", db, flows)
    assert len(flows.ids) == 1 and flows.creates == 1
    assert [(r["id"], r["outcome"]) for r in runs(db, "nightly_export")] == [(flows.ids[0], "succeeded")]
