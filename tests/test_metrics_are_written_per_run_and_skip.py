"""Issue 27, metrics an operator can alarm on: where an Analytics Engine dataset is bound, each
run and each skip a tick makes writes one data point (schedule, outcome, code, attempt, lag from
due to start, missed count), indexed by schedule; a tick that makes none writes none, and the
points cost no D1 statement."""

from dataclasses import replace

from helpers import calendar, every, ticks

from tickwork.metrics import BLOBS, DOUBLES, point_of
from tickwork.model import ActionError, Retry
from tickwork.testing import MemoryDataset
from tickwork.times import HOUR, MINUTE, utc


def rows(dataset: MemoryDataset) -> list[dict]:
    """The points by the names the docs give their columns."""
    return [{**dict(zip(BLOBS, r_blobs)), **dict(zip(DOUBLES, r_doubles)), "index": p["indexes"][0]}
            for p in dataset.points for r_blobs, r_doubles in [(p["blobs"], p["doubles"])]]


def test_a_due_run_writes_one_point_indexed_by_its_schedule_with_its_lag(db):
    dataset = MemoryDataset()
    ticks(db, [every(15)], utc("2026-03-02 09:00"), metrics=dataset)
    ticks(db, [every(15)], utc("2026-03-02 09:15"), started_at=utc("2026-03-02 09:15") + 2_500, metrics=dataset)
    [point] = rows(dataset)
    assert point == {"index": "census", "schedule": "census", "outcome": "succeeded", "code": "", "trace": point["trace"],
                     "origin": "due",
                     "lag_ms": 2_500.0, "attempt": 1.0, "missed": 0.0, "duration_ms": point["duration_ms"]}
    assert len(point["trace"]) == 32


def test_a_tick_with_nothing_due_writes_no_point(db):
    dataset = MemoryDataset()
    ticks(db, [every(15)], utc("2026-03-02 09:00"), utc("2026-03-02 09:01"), utc("2026-03-02 09:14"), metrics=dataset)
    assert dataset.points == []


def test_a_run_after_a_gap_counts_the_occurrences_it_missed(db):
    dataset = MemoryDataset()
    ticks(db, [every(15)], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 10:15"), metrics=dataset)
    assert [p["missed"] for p in rows(dataset)] == [0.0, 3.0]


def test_a_failed_run_writes_its_code_and_its_retry_its_attempt(db):
    async def failing():
        raise ActionError("upstream_down", "the upstream answered 503")

    schedule = replace(every(15, "sync", failing), retry=Retry(attempts=2, pause=MINUTE))
    dataset = MemoryDataset()
    ticks(db, [schedule], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 09:16"), metrics=dataset)
    assert [(p["outcome"], p["code"], p["attempt"]) for p in rows(dataset)] == [
        ("failed", "upstream_down", 1.0), ("failed", "upstream_down", 2.0)]


def test_a_skip_writes_its_reason_as_its_code(db):
    dataset = MemoryDataset()
    daily = calendar("0 9 * * *", name="daily", overdue=HOUR)
    ticks(db, [daily], utc("2026-01-01 00:00"), utc("2026-01-04 12:00"), metrics=dataset)
    [point] = rows(dataset)
    assert (point["schedule"], point["outcome"], point["code"], point["missed"]) == ("daily", "skipped", "overdue", 3.0)
    assert point["lag_ms"] == utc("2026-01-04 12:00") - utc("2026-01-01 09:00")  # from the first it skips


def test_points_cost_no_statement_and_no_row(db):
    schedules = [every(1, f"s{n}") for n in range(5)]
    ticks(db, schedules, utc("2026-03-02 09:00"))
    without = db.statements_run
    ticks(db, schedules, utc("2026-03-02 09:01"))
    plain = db.statements_run - without
    dataset = MemoryDataset()
    before = db.statements_run
    ticks(db, schedules, utc("2026-03-02 09:02"), metrics=dataset)
    assert db.statements_run - before == plain and len(dataset.points) == 5


def test_a_dataset_that_refuses_a_point_fails_no_run(db):
    class Refusing:
        def writeDataPoint(self, point):  # noqa: N802
            raise RuntimeError("the binding refused it")

    ticks(db, [every(15)], utc("2026-03-02 09:00"))
    [report] = ticks(db, [every(15)], utc("2026-03-02 09:15"), metrics=Refusing())
    assert [r.outcome for r in report.runs] == ["succeeded"]


def test_the_layout_is_the_one_the_docs_query():
    assert BLOBS == ("schedule", "outcome", "code", "trace", "origin")
    assert DOUBLES == ("lag_ms", "attempt", "missed", "duration_ms")
    assert point_of.__doc__


def test_a_run_by_hand_says_so_and_its_lag_is_kept_out_of_the_due_runs(db):
    from test_runs_by_hand import ask

    dataset = MemoryDataset()
    ticks(db, [every(15)], utc("2026-03-02 09:00"))
    ask(db, at=utc("2026-03-02 09:02"))
    ticks(db, [every(15)], utc("2026-03-02 09:03"), utc("2026-03-02 09:15"), metrics=dataset)
    assert [p["origin"] for p in rows(dataset)] == ["by_hand", "due"]


def test_a_backfilled_run_says_so(app):
    from test_backfill import APRIL, statement

    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    dataset = MemoryDataset()
    app.tick([monthly], APRIL + MINUTE, metrics=dataset)
    assert [p["origin"] for p in rows(dataset)] == ["backfill"]
