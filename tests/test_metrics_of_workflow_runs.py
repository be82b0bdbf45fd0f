"""Issue 27, metrics (one data point per run and skip) where runs go through Workflows: a Workflow
run writes its one point as its instance settles, with its outcome, its lag from due to the
instance's creation, the instance's duration, the occurrences it covered and why it ran, as
its record says: a run by hand or a backfilled one is kept out of the due runs' lag there too."""

import asyncio

from helpers import open_store
from test_metrics_are_written_per_run_and_skip import rows
from test_runs_by_hand import ask

from tickwork import Schedule, env
from tickwork.kinds.every import Every
from tickwork.testing import MemoryDataset, Workflows, tick_at
from tickwork.times import HOUR, MINUTE, utc

NINE = utc("2026-03-02T09:00Z")


async def _never() -> None:
    raise AssertionError("called")


SCHEDULES = [Schedule("nightly_export", Every(HOUR), _never, workflow="EXPORTS")]


def ticked(db, flows, at, dataset=None, **options):
    with env.given(EXPORTS=flows):
        return asyncio.run(tick_at(SCHEDULES, at, db, metrics=dataset, **options))


def test_a_workflow_run_writes_one_point_as_it_settles_with_its_lag_and_the_instances_duration():
    db, flows, dataset = open_store(), Workflows(), MemoryDataset()
    ticked(db, flows, NINE - HOUR)
    ticked(db, flows, NINE, dataset, started_at=NINE + 2_000)
    assert rows(dataset) == []  # created, going on: no point yet
    flows.complete(flows.ids[0], {"rows": 12})
    ticked(db, flows, NINE + 30 * MINUTE, dataset)
    [point] = rows(dataset)
    assert (point["outcome"], point["origin"], point["lag_ms"], point["attempt"]) == ("succeeded", "due", 2_000.0, 1.0)
    assert point["duration_ms"] >= 30 * MINUTE - 2_000


def test_a_workflow_run_after_a_gap_says_at_its_settling_the_occurrences_it_covered():
    db, flows, dataset = open_store(), Workflows(), MemoryDataset()
    ticked(db, flows, NINE - HOUR)
    ticked(db, flows, NINE + 2 * HOUR, dataset)  # covers 09:00 to 11:00
    flows.complete(flows.ids[0])
    ticked(db, flows, NINE + 2 * HOUR + MINUTE, dataset)
    assert [(p["outcome"], p["missed"]) for p in rows(dataset)] == [("succeeded", 2.0)]


def test_a_workflow_run_by_hand_says_so_at_its_settling_and_is_kept_out_of_the_due_runs():
    db, flows, dataset = open_store(), Workflows(), MemoryDataset()
    ticked(db, flows, NINE - HOUR)
    ask(db, "nightly_export", at=NINE - 50 * MINUTE)
    ticked(db, flows, NINE - 49 * MINUTE, dataset)
    flows.complete(flows.ids[0])
    ticked(db, flows, NINE - 48 * MINUTE, dataset)
    assert [(p["outcome"], p["origin"]) for p in rows(dataset)] == [("succeeded", "by_hand")]


def test_a_backfilled_workflow_run_says_so_at_its_settling(tmp_path, capsys):
    from test_workflow_runs_backfilled_and_remade import asked

    db, flows, dataset = open_store(tmp_path / "store.sqlite"), Workflows(), MemoryDataset()
    ticked(db, flows, NINE - HOUR)
    ticked(db, flows, NINE + 2 * HOUR)  # covers 09:00 to 11:00
    flows.complete(flows.ids[0])
    ticked(db, flows, NINE + 2 * HOUR + MINUTE)
    asked(tmp_path, capsys, "backfill", "nightly_export", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:00Z",
          now="2026-03-02T11:05Z")
    ticked(db, flows, NINE + 2 * HOUR + 6 * MINUTE, dataset)
    flows.complete(flows.ids[1])
    ticked(db, flows, NINE + 2 * HOUR + 7 * MINUTE, dataset)
    assert [(p["outcome"], p["origin"]) for p in rows(dataset)] == [("succeeded", "backfill")]
