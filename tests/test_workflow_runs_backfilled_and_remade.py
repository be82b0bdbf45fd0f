"""Issue 27 with issues 16-17: a Workflow schedule's backfill and remake make their occurrences as
any run's, each creating one instance (under its run's id) that a later tick settles; a run after
a gap records the occurrences it covers, as any run's."""

import asyncio

from helpers import open_store, runs

from tickwork import Schedule, env
from tickwork.kinds.every import Every
from tickwork.testing import Workflows, tick_at
from tickwork.times import HOUR, utc


async def _never() -> None:
    raise AssertionError("called")


SCHEDULES = [Schedule("nightly_export", Every(HOUR), _never, workflow="EXPORTS")]


def ticked(moment, db, flows):
    with env.given(EXPORTS=flows):
        return asyncio.run(tick_at(SCHEDULES, utc(moment), db))


def asked(tmp_path, capsys, *words, now):
    from tickwork_cli.cli import main

    code = main([*words, "--sqlite", str(tmp_path / "store.sqlite"), "--who", "ada"], now=utc(now))
    said = capsys.readouterr()
    assert code == 0, said
    return said.out


def settled_all(flows):
    for id, instance in flows.instances.items():
        if instance.state in ("queued", "running"):
            flows.complete(id, {"run": id})


def record(db):
    return [(r["due_at"], r["outcome"], r["id"]) for r in runs(db, "nightly_export")]


def after_a_gap(tmp_path):
    """09:00 ran and settled; no tick from 09:01 to 12:00, whose run covers 10:00 to 12:00."""
    db, flows = open_store(tmp_path / "store.sqlite"), Workflows()
    ticked("2026-03-02T08:00Z", db, flows)
    ticked("2026-03-02T09:00Z", db, flows)
    settled_all(flows)
    ticked("2026-03-02T09:01Z", db, flows)
    ticked("2026-03-02T12:00Z", db, flows)
    settled_all(flows)
    ticked("2026-03-02T12:01Z", db, flows)
    return db, flows


def test_a_workflow_run_after_a_gap_records_the_occurrences_it_covers(tmp_path):
    db, flows = after_a_gap(tmp_path)
    late = runs(db, "nightly_export")[-1]
    assert (late["outcome"], late["covers"], late["covers_first"], late["covers_last"]) == (
        "succeeded", 3, utc("2026-03-02T10:00Z"), utc("2026-03-02T12:00Z"))
    assert len(flows.ids) == 2


def test_a_backfill_of_a_workflow_schedule_creates_one_instance_per_occurrence_and_each_settles(tmp_path, capsys):
    db, flows = after_a_gap(tmp_path)
    asked(tmp_path, capsys, "backfill", "nightly_export", "--from", "2026-03-02T10:00Z", "--to",
          "2026-03-02T11:00Z", now="2026-03-02T12:05Z")
    for moment in ("2026-03-02T12:06Z", "2026-03-02T12:07Z", "2026-03-02T12:08Z", "2026-03-02T12:09Z"):
        ticked(moment, db, flows)
        settled_all(flows)
    ticked("2026-03-02T12:10Z", db, flows)
    backfilled = [(r["due_at"], r["outcome"], r["id"]) for r in runs(db, "nightly_export") if r["backfill"] == "ada"]
    assert [(due, outcome) for due, outcome, _ in backfilled] == [
        (utc("2026-03-02T10:00Z"), "succeeded"), (utc("2026-03-02T11:00Z"), "succeeded")]
    assert len(flows.ids) == 4 and {id for _, _, id in backfilled} <= set(flows.ids)
    assert [flows.instances[id].params["due"] for _, _, id in backfilled] == [
        utc("2026-03-02T10:00Z"), utc("2026-03-02T11:00Z")]


def test_a_remake_of_a_failed_workflow_run_creates_one_instance_that_settles(tmp_path, capsys):
    db, flows = open_store(tmp_path / "store.sqlite"), Workflows()
    ticked("2026-03-02T08:00Z", db, flows)
    ticked("2026-03-02T09:00Z", db, flows)
    flows.errored(flows.ids[0], "the warehouse refused the export")
    ticked("2026-03-02T09:01Z", db, flows)
    [(_, outcome, failed)] = record(db)
    assert outcome == "failed"
    asked(tmp_path, capsys, "remake", failed, now="2026-03-02T09:05Z")
    ticked("2026-03-02T09:06Z", db, flows)
    assert len(flows.ids) == 2
    flows.complete(flows.ids[1], {"rows": 3})
    ticked("2026-03-02T09:07Z", db, flows)
    ticked("2026-03-02T09:08Z", db, flows)
    assert [(due, outcome) for due, outcome, _ in record(db)] == [
        (utc("2026-03-02T09:00Z"), "failed"), (utc("2026-03-02T09:00Z"), "succeeded")]
    assert record(db)[1][2] == flows.ids[1] and len(flows.ids) == 2
