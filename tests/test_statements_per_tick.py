"""How many D1 statements, and round trips, one tick makes with 10 schedules (a batch counts
each statement, and is one round trip)."""

from harness import FakeQueue
from helpers import every, open_store, run, ticks

from tickwork.times import MINUTE, utc

SCHEDULES = [every(15, "quarterly")] + [every(60, f"hourly_{n}") for n in range(9)]

# A tick's first batch marks the app's tick and reads the rows due.
FIRST_READ = 2


def cost(db, moment, schedules=SCHEDULES):
    """What the tick at `moment` costs, the app's tick before it a minute earlier, as on time, and
    the hour's housekeeping done."""
    ticks(db, schedules, moment - MINUTE)
    run(db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (moment,)))
    statements, round_trips = db.statements_run, db.round_trips
    [report] = ticks(db, schedules, moment)
    return db.statements_run - statements, db.round_trips - round_trips, len(report.runs)


def test_a_tick_with_none_due_makes_two_statements_in_one_round_trip(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    assert cost(db, utc("2026-03-02 09:14")) == (FIRST_READ, 1, 0)


def test_a_tick_with_one_due_makes_five_statements_in_three_round_trips(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    # the first read; lease and run record (one batch); the end record, which gives the lease back
    assert cost(db, utc("2026-03-02 09:15")) == (FIRST_READ + 2 + 1, 3, 1)


def test_a_tick_with_all_ten_due_makes_as_many_statements_as_with_one(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    assert cost(db, utc("2026-03-02 10:00")) == (FIRST_READ + 2 + 1, 3, 10)


def test_a_hundred_due_cost_five_statements_in_at_most_five_round_trips(db):
    hundred = [every(1, f"s{n:03}") for n in range(100)]
    ticks(db, hundred, utc("2026-03-02 09:00"))
    statements, round_trips, ran = cost(db, utc("2026-03-02 09:01"), hundred)
    assert (statements, ran) == (FIRST_READ + 2 + 1, 100) and round_trips <= 5


def test_a_thousand_due_all_run_in_one_tick_within_the_free_plans_fifty_statements(db):
    thousand = [every(1, f"s{n:04}") for n in range(1000)]
    ticks(db, thousand, utc("2026-03-02 09:00"))
    before = db.statements_run
    [report] = ticks(db, thousand, utc("2026-03-02 09:01"), max_statements=50)
    assert len(report.runs) == 1000 and db.statements_run - before <= 50


def test_a_tick_after_a_deploy_changed_the_declared_set_reconciles_in_three_more_round_trips(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    deployed = SCHEDULES[:5] + [every(5, "new")]
    before = db.statements_run, db.round_trips
    ticks(db, deployed, utc("2026-03-02 09:01"))
    # the first read; the last deploy marker's set and the declared rows read, the others marked
    # removed; the new rows seeded, the deploy marked and the set sealed; the due rows read again
    assert (db.statements_run - before[0], db.round_trips - before[1]) == (FIRST_READ + 3 + 3 + 1, 4)
    assert cost(db, utc("2026-03-02 09:03"), deployed) == (FIRST_READ, 1, 0)


def test_a_tick_that_finds_the_tick_before_it_more_than_three_minutes_ago_records_the_gap(db):
    ticks(db, SCHEDULES, utc("2026-03-02 09:00"))
    before = db.statements_run
    ticks(db, SCHEDULES, utc("2026-03-02 09:05"))
    assert db.statements_run - before == FIRST_READ + 1
    assert run(db.all("SELECT from_tick, to_tick FROM tickwork_gaps")) == [
        {"from_tick": utc("2026-03-02 09:00"), "to_tick": utc("2026-03-02 09:05")}]


def test_a_deploys_reconcile_reads_the_declared_rows_only_never_those_handed_over(db):
    from tickwork.schedule_store import MARK_REMOVED

    plan = [row["detail"] for row in run(db.all(f"EXPLAIN QUERY PLAN {MARK_REMOVED}", ('["a"]', 0)))]
    assert any("tickwork_schedules_declared" in step for step in plan), plan


def test_a_ticks_first_read_finds_runs_asked_for_by_hand_through_their_own_index_not_the_due_times(db):
    from tickwork.schedule_store import SELECT_DUE

    plan = [row["detail"] for row in run(db.all(f"EXPLAIN QUERY PLAN {SELECT_DUE}", (0, -1)))]
    assert any("tickwork_schedules_by_hand" in step for step in plan), plan
    # No table is scanned: what is scanned is the due rows read through the indexes, numbered by
    # their concurrency key (only the first of each key, as many as its limit, are read on).
    assert not any(step.startswith("SCAN") and "subquery" not in step and step != "SCAN s" for step in plan), plan


def test_a_claim_batch_makes_no_more_statements_than_the_tick_counts_for_it_before_it_claims(db):
    from tickwork.schedule_store import ROWS_PER_STATEMENT, Claim, ScheduleStore
    from tickwork.tick import statements_for

    nine = utc("2026-03-02 09:00")
    # calendars sharing an action in the first and in the last chunk of rows: two chunks claim moments
    claims = [Claim(f"s{k}", nine, nine + MINUTE, f"run-{k}", moment="act" if k in (0, ROWS_PER_STATEMENT) else None)
              for k in range(ROWS_PER_STATEMENT + 1)]
    before = db.statements_run
    run(ScheduleStore(db).claim(claims, nine + 16 * MINUTE, nine, nine))
    assert db.statements_run - before <= statements_for(claims, flush=0)


# Found in the review of issues 8 and 9 (tests/test_defects_found_in_review.py, split by rule).
NINE = utc("2026-03-02 09:00")


def test_a_tick_whose_runs_emit_many_events_stays_within_its_statement_cap():
    from test_the_outbox import emitting_events, outbox

    db, queue = open_store(), FakeQueue()
    place = [emitting_events("place", 1000)]
    ticks(db, place, NINE)
    before = db.statements_run
    ticks(db, place, NINE + MINUTE, max_statements=10, outbox=outbox(db, queue, at=NINE + MINUTE))
    assert db.statements_run - before <= 10


def test_a_reconciling_tick_stays_within_its_statement_cap(db):
    schedules = [every(60, name=f"s{k}") for k in range(1000)]
    before = db.statements_run
    ticks(db, schedules, NINE, max_statements=10)
    assert db.statements_run - before <= 10


def test_a_tick_with_none_due_stays_two_statements_with_every_policy_and_issue_27s_features_in_use():
    """scripts/bench/policies.py's set: every policy of issue 25 (`overlap: allow` with them), a
    wake queue, a metrics dataset and schedules through a Workflow, one run of which settled."""
    import asyncio
    import importlib.util
    from pathlib import Path

    from tickwork import env

    path = Path(__file__).resolve().parents[1] / "scripts" / "bench" / "policies.py"
    spec = importlib.util.spec_from_file_location("bench_policies", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with env.given(EXPORTS=bench.FLOWS):
        found, missed = asyncio.run(bench.main())
    assert missed == [] and found["none_due"] == {"statements": 2, "round_trips": 1, "rows_written": 1}
    assert (found["workflow_instances"], found["points"]) == (1, 1)  # the Workflow's run made, settled, counted
