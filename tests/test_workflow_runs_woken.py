"""Issue 27, wakes with Workflows: a Workflow run's retry due before the next minute tick is woken
for at its second, as any run's, by the tick that settled its failed instance, and the wake's tick
creates the retry's instance (attempt 2); with `overlap: allow`, beside the run still going."""

from helpers import open_store, run, runs

from tickwork import Schedule, env
from tickwork.app import App
from tickwork.kinds.every import Every
from tickwork.model import Retry
from tickwork.testing import DelayedQueue, Workflows, tick_with_wakes, wakes_delivered
from tickwork.times import HOUR, MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")


async def _never() -> None:
    raise AssertionError("called")


def app_of(every=HOUR, **rules) -> App:
    schedule = Schedule("export", Every(every), _never, retry=Retry(1, 20 * SECOND), workflow="EXPORTS", **rules)
    return App("DB", (schedule,), producers={"WAKES": "tickwork-wakes"})


def made(db):
    return [(r["outcome"], r["attempt"], r["due_at"] - NINE, r["started_at"] - NINE) for r in runs(db, "export")]


def test_a_workflow_runs_retry_20_seconds_after_its_instance_settled_errored_is_woken_for_and_created_then():
    app, db, queue, flows = app_of(), open_store(), DelayedQueue(), Workflows()
    with env.given(EXPORTS=flows):
        run(tick_with_wakes(app, NINE - HOUR, db, queue))
        run(tick_with_wakes(app, NINE, db, queue))
        flows.errored(flows.ids[0], "the warehouse refused the export")
        run(tick_with_wakes(app, NINE + MINUTE, db, queue))  # settles it failed: its retry at 09:01:20
        assert [at for at, _ in queue.sent] == [NINE + MINUTE + 20 * SECOND]
        run(wakes_delivered(app, NINE + 2 * MINUTE - 1, db, queue))
        assert len(flows.ids) == 2 and flows.instances[flows.ids[1]].params["attempt"] == 2
        flows.complete(flows.ids[1])
        run(tick_with_wakes(app, NINE + 2 * MINUTE, db, queue))
    assert made(db) == [("failed", 1, 0, 0), ("succeeded", 2, 0, MINUTE + 20 * SECOND)]


def test_a_retry_of_a_workflow_run_beside_another_is_woken_for_and_runs_beside_it():
    app, db, queue, flows = app_of(10 * MINUTE, overlap="allow"), open_store(), DelayedQueue(), Workflows()
    with env.given(EXPORTS=flows):
        run(tick_with_wakes(app, NINE, db, queue))
        run(tick_with_wakes(app, NINE + 10 * MINUTE, db, queue))
        flows.running(flows.ids[0])
        run(tick_with_wakes(app, NINE + 20 * MINUTE, db, queue))  # beside 09:10's, still going
        flows.errored(flows.ids[1], "down")
        run(tick_with_wakes(app, NINE + 21 * MINUTE, db, queue))
        run(wakes_delivered(app, NINE + 22 * MINUTE - 1, db, queue))
        assert len(flows.ids) == 3 and flows.instances[flows.ids[0]].state == "running"
        for id in flows.ids:
            flows.complete(id)
        run(tick_with_wakes(app, NINE + 22 * MINUTE, db, queue))
    assert made(db) == [("succeeded", 1, 10 * MINUTE, 10 * MINUTE), ("failed", 1, 20 * MINUTE, 20 * MINUTE),
                        ("succeeded", 2, 20 * MINUTE, 21 * MINUTE + 20 * SECOND)]
