"""Actions reach the Worker: inside a run and a queue consumer, `tickwork.env` is the Worker's
own bindings, vars and secrets and `wait_until` hands work to its `ctx.waitUntil`; in a test,
`env.given(...)` sets them as `clock.fixed` sets the time. What a run gives `on_success.write`
commits in the batch of its end record, only if it succeeds, and only once."""

import asyncio
import sqlite3
from types import SimpleNamespace

import pytest
from faults import Faulty, at
from helpers import MIGRATIONS, open_store, run, runs, tick_at, ticks
from test_worker_adapter import D1Shaped

from tickwork import Schedule, clock, env, handled, on_success, wait_until
from tickwork.adapters.workers import run_cron_tick, run_queue
from tickwork.app import App
from tickwork.consumers import Consumer
from tickwork.context import NotInRun
from tickwork.grid import Every
from tickwork.model import Code, Outcome
from tickwork.schedule_store import FAIL_EXPIRED_RUNS, RECORD_ENDS, STILL_RUNNING
from tickwork.times import MINUTE, utc

NINE = utc("2026-03-02 09:00")
NINE_ONE = utc("2026-03-02 09:01")
CHORE = "INSERT INTO chores_done (chore, done_at) VALUES (?1, ?2)"


class Ctx:
    """An invocation's `ctx` as the runtime hands it: `waitUntil` keeps what it is given."""

    def __init__(self):
        self.handed: list = []

    def waitUntil(self, awaitable):
        self.handed.append(awaitable)


class Batches:
    """Records the SQL of every call to the store (a batch being one call), changing nothing."""

    def __init__(self, db):
        self.db = db
        self.calls: list[list[str]] = []
        self._batch = db.batch
        db.batch = self.batch

    async def batch(self, statements):
        self.calls.append([sql for sql, _ in statements])
        return await self._batch(statements)

    def with_end(self) -> list[str]:
        [batch] = [sqls for sqls in self.calls if RECORD_ENDS in sqls]
        return batch


def chores(db) -> list[tuple]:
    return [(row["chore"], row["done_at"]) for row in run(db.all("SELECT chore, done_at FROM chores_done ORDER BY id"))]


def every_minute(action, name="census") -> Schedule:
    return Schedule(name, Every(MINUTE), action)


# --- env and wait_until ---------------------------------------------------------------------

def test_outside_a_run_env_says_it_is_set_only_inside_a_run_or_a_consumer():
    with pytest.raises(NotInRun, match="only inside a run or a queue consumer; in a test, use env.given"):
        env.API_TOKEN


def test_a_test_gives_env_as_clock_fixed_gives_the_time():
    async def sign():
        return f"{env.REPORT_TO} at {clock.now_ms} with {env.API_TOKEN}"

    with clock.fixed(NINE), env.given(REPORT_TO="sales@example.com", API_TOKEN="t0ken"):
        assert asyncio.run(sign()) == f"sales@example.com at {NINE} with t0ken"


def test_env_given_an_object_reads_the_bindings_as_its_attributes_and_a_missing_one_as_missing():
    with env.given(SimpleNamespace(DB="the binding")):
        assert env.DB == "the binding"
        assert getattr(env, "NOT_BOUND", None) is None


def test_env_given_both_an_object_and_bindings_by_name_is_refused():
    with pytest.raises(TypeError, match="an object or bindings by name, not both"):
        env.given(SimpleNamespace(DB="the binding"), API_TOKEN="t0ken")


def test_wait_until_hands_the_work_to_ctx_wait_until_and_it_runs_on_after_the_action_returns():
    done = []

    async def notify():
        await asyncio.sleep(0)
        done.append(clock.now_ms)

    async def action():
        wait_until(notify())

    async def invocation(ctx):
        with clock.fixed(NINE), env.given(ctx=ctx):
            await action()
        assert done == []
        await asyncio.gather(*ctx.handed)

    ctx = Ctx()
    asyncio.run(invocation(ctx))
    assert (len(ctx.handed), done) == (1, [NINE])


def test_wait_until_without_a_ctx_says_to_pass_self_ctx():
    async def action():
        wait_until(asyncio.sleep(0))

    with env.given(), pytest.raises(NotInRun, match=r"pass self.ctx"):
        asyncio.run(action())


def project_d1(tmp_path):
    database = tmp_path / "d1.sqlite"
    setup = sqlite3.connect(database)
    for script in sorted(MIGRATIONS.glob("*.sql")):
        setup.executescript(script.read_text())
    setup.close()
    return D1Shaped(database)


def test_a_cron_tick_hands_its_runs_the_workers_env_and_ctx(tmp_path):
    seen = []

    async def census():
        seen.append(env.API_TOKEN)
        wait_until(asyncio.sleep(0))

    app = App(store="DB", schedules=(every_minute(census),))
    worker_env, ctx = SimpleNamespace(DB=project_d1(tmp_path), API_TOKEN="t0ken"), Ctx()

    async def two_ticks():
        for moment in (NINE, NINE_ONE):
            await run_cron_tick(app, worker_env, SimpleNamespace(cron="* * * * *", scheduledTime=moment), ctx)
        await asyncio.gather(*ctx.handed)

    run(two_ticks())
    assert (seen, len(ctx.handed)) == (["t0ken"], 1)


def test_a_queue_consumer_reads_the_workers_env_as_a_run_does(tmp_path):
    seen = []

    async def on_message():
        seen.append(env.API_TOKEN)

    app = App(store="DB", schedules=(), consumers={"q": Consumer("q", on_message)})
    worker_env = SimpleNamespace(DB=project_d1(tmp_path), API_TOKEN="t0ken")
    message = SimpleNamespace(id="m-1", body={"n": 1}, attempts=1, ack=lambda: None, retry=lambda: None)
    run(run_queue(app, worker_env, SimpleNamespace(queue="q", messages=[message]), Ctx()))
    assert seen == ["t0ken"]


# --- on_success.write: a run's own writes, with its end ---------------------------------------

def test_what_a_run_writes_on_success_commits_with_its_end_in_the_same_batch():
    db = open_store()
    recorded = Batches(db)

    async def census():
        on_success.write(CHORE, "census", clock.now_ms)
        on_success.write(CHORE, "tally", clock.now_ms)

    ticks(db, [every_minute(census)], NINE, NINE_ONE)
    assert chores(db) == [("census", NINE_ONE), ("tally", NINE_ONE)]
    assert recorded.with_end() == [STILL_RUNNING, CHORE, CHORE, RECORD_ENDS]
    assert runs(db)[-1]["outcome"] == Outcome.SUCCEEDED


def test_a_run_that_writes_on_success_makes_no_more_round_trips_than_one_that_does_not():
    def round_trips(action):
        db = open_store()
        ticks(db, [every_minute(action)], NINE)
        before = (db.round_trips, db.statements_run)
        ticks(db, [every_minute(action)], NINE_ONE)
        return db.round_trips - before[0], db.statements_run - before[1]

    async def writes():
        on_success.write(CHORE, "census", clock.now_ms)

    async def none():
        pass

    (with_writes, statements_with), (without, statements_without) = round_trips(writes), round_trips(none)
    assert with_writes == without
    assert statements_with == statements_without + 2  # the check that the run is still running, the write


@pytest.mark.parametrize("cap, outcome", [(8, Outcome.SUCCEEDED), (7, Outcome.FAILED)], ids=["they fit", "one short"])
def test_on_success_writes_are_kept_only_where_they_fit_the_cap_beside_the_ends_still_to_record(cap, outcome):
    db = open_store()

    async def census():
        on_success.write(CHORE, "census", clock.now_ms)
        on_success.write(CHORE, "tally", clock.now_ms)

    ticks(db, [every_minute(census)], NINE)
    before = db.statements_run
    # the first read, the claim; the writes behind their check (3) beside the end's statement
    ticks(db, [every_minute(census)], NINE_ONE, max_statements=cap)
    spent = db.statements_run - before
    record = runs(db)[-1]
    assert (record["outcome"], spent) == (outcome, 8 if outcome == Outcome.SUCCEEDED else 5)
    if outcome == Outcome.FAILED:
        assert (record["code"], chores(db)) == (Code.INTERNAL_FAULT, [])
        assert record["detail"].startswith("its 2 on_success writes take 3 statements, more than the tick has left")

def test_a_failed_run_commits_none_of_its_on_success_writes():
    db = open_store()

    async def census():
        on_success.write(CHORE, "census", clock.now_ms)
        raise RuntimeError("the census fails after writing")

    ticks(db, [every_minute(census)], NINE, NINE_ONE)
    assert chores(db) == []
    assert runs(db)[-1]["outcome"] == Outcome.FAILED


def test_a_run_recorded_deadline_exceeded_commits_none_of_its_on_success_writes():
    db = open_store()
    elapsed = [0.0]  # seconds into the tick: the run blocks past its limit, so it cannot be stopped

    async def census():
        on_success.write(CHORE, "census", clock.now_ms)
        elapsed[0] += 2.0

    ticks(db, [every_minute(census)], NINE)
    ticks(db, [every_minute(census)], NINE_ONE, budget=1000, monotonic=lambda: elapsed[0])
    assert chores(db) == []
    assert runs(db)[-1]["code"] == Code.DEADLINE_EXCEEDED


def test_writes_d1_refuses_fail_their_run_keep_none_of_its_writes_and_leave_a_sibling_succeeded():
    db = open_store()

    async def census():
        on_success.write(CHORE, "census", clock.now_ms)
        on_success.write("INSERT INTO no_such_table (x) VALUES (?1)", 1)

    async def tally():
        await asyncio.sleep(0)

    ticks(db, [every_minute(census), every_minute(tally, "tally")], NINE, NINE_ONE)
    assert chores(db) == []
    census_run, tally_run = runs(db, "census")[-1], runs(db, "tally")[-1]
    assert (census_run["outcome"], census_run["code"]) == (Outcome.FAILED, Code.INTERNAL_FAULT)
    assert "D1 refused the batch of its end and its 2 on_success writes, so none was kept" in census_run["detail"]
    assert "no such table: no_such_table" in census_run["detail"]
    assert tally_run["outcome"] == Outcome.SUCCEEDED


def test_writes_of_an_end_batch_that_landed_though_d1_answered_an_error_commit_once():
    db = open_store()
    faulty = Faulty(db, at("ends"), landed=True)

    async def census():
        on_success.write(CHORE, "census", clock.now_ms)

    ticks(faulty, [every_minute(census)], NINE, NINE_ONE)
    assert faulty.failed  # the end's batch answered an error after it committed
    assert chores(db) == [("census", NINE_ONE)]
    assert runs(db)[-1]["outcome"] == Outcome.SUCCEEDED


def test_a_run_recorded_lease_expired_meanwhile_commits_none_of_its_writes():
    db = open_store()

    async def census():
        # another tick, past the lease, records the run lost while it still runs
        await db.all(FAIL_EXPIRED_RUNS, (NINE_ONE + 60 * MINUTE, NINE))
        on_success.write(CHORE, "census", clock.now_ms)

    ticks(db, [every_minute(census)], NINE, NINE_ONE)
    assert chores(db) == []
    assert runs(db)[-1]["code"] == Code.LEASE_EXPIRED


def test_handled_write_in_a_run_points_to_on_success_write():
    db = open_store()
    raised = []

    async def census():
        try:
            handled.write(CHORE, "census", 0)
        except NotInRun as error:
            raised.append(str(error))

    ticks(db, [every_minute(census)], NINE, NINE_ONE)
    assert raised == ["handled.write is for queue consumers: in a run, use on_success.write"]


def test_on_success_write_in_a_consumer_commits_with_its_handled_record(tmp_path):
    worker_env = SimpleNamespace(DB=project_d1(tmp_path))

    async def on_message():
        on_success.write(CHORE, "shipped", 7)

    app = App(store="DB", schedules=(), consumers={"q": Consumer("q", on_message)})
    message = SimpleNamespace(id="m-1", body={"n": 1}, attempts=1, ack=lambda: None, retry=lambda: None)
    batch = SimpleNamespace(queue="q", messages=[message])
    run(run_queue(app, worker_env, batch))
    run(run_queue(app, worker_env, batch))  # delivered again: acked, not called again
    rows = worker_env.DB.conn.execute("SELECT chore, done_at FROM chores_done").fetchall()
    assert [tuple(row) for row in rows] == [("shipped", 7)]


def test_on_success_write_outside_a_run_says_where_it_belongs():
    with pytest.raises(NotInRun, match="only inside a run"):
        on_success.write(CHORE, "census", 0)


# --- one run's refused writes are its own ------------------------------------------------------

def test_writes_d1_refuses_fail_only_their_own_run_and_a_siblings_writes_in_the_same_batch_commit():
    db = open_store()
    recorded = Batches(db)

    async def census():
        on_success.write("INSERT INTO no_such_table (x) VALUES (?1)", 1)

    async def tally():
        on_success.write(CHORE, "tally", clock.now_ms)

    ticks(db, [every_minute(census), every_minute(tally, "tally")], NINE, NINE_ONE)
    first = next(sqls for sqls in recorded.calls if STILL_RUNNING in sqls)
    assert first.count(STILL_RUNNING) == 2  # both ends went in one batch first
    assert chores(db) == [("tally", NINE_ONE)]
    assert runs(db, "census")[-1]["outcome"] == Outcome.FAILED
    assert runs(db, "tally")[-1]["outcome"] == Outcome.SUCCEEDED


def test_a_run_recorded_lease_expired_meanwhile_leaves_a_siblings_writes_committed():
    db = open_store()

    async def census():
        # another tick records this run lost while it still runs; its sibling's record stays running
        await db.all("UPDATE tickwork_runs SET outcome = 'failed', code = ?1 WHERE schedule = 'census' "
                      "AND outcome = 'running'", (Code.LEASE_EXPIRED,))
        on_success.write(CHORE, "census", clock.now_ms)

    async def tally():
        on_success.write(CHORE, "tally", clock.now_ms)

    ticks(db, [every_minute(census), every_minute(tally, "tally")], NINE, NINE_ONE)
    assert chores(db) == [("tally", NINE_ONE)]
    assert runs(db, "census")[-1]["code"] == Code.LEASE_EXPIRED
    assert runs(db, "tally")[-1]["outcome"] == Outcome.SUCCEEDED


# --- D1's limits, said where the statement is given ---------------------------------------------

def test_on_success_write_refuses_more_bound_parameters_than_d1_takes_in_a_statement():
    db = open_store()
    many = ", ".join(f"(?{2 * k + 1}, ?{2 * k + 2})" for k in range(51))

    async def census():
        on_success.write(f"INSERT INTO chores_done (chore, done_at) VALUES {many}", *["census", 1] * 51)

    ticks(db, [every_minute(census)], NINE, NINE_ONE)
    assert chores(db) == []
    assert "on_success.write: the statement binds 102 parameters; D1 takes at most 100" in runs(db)[-1]["detail"]


def test_on_success_write_refuses_a_statement_longer_than_d1_takes():
    db = open_store()

    async def census():
        on_success.write(CHORE + " -- " + "x" * 100_000, "census", 1)

    ticks(db, [every_minute(census)], NINE, NINE_ONE)
    assert chores(db) == []
    assert "on_success.write: the statement is 100,060 bytes long; D1 takes at most 100,000" in runs(db)[-1]["detail"]


# --- work handed to wait_until, after the run ------------------------------------------------

def run_then_what_it_handed_over(db, action):
    """Two ticks, the second running `action`; then what it handed to `ctx.waitUntil`, as the
    invocation waits for it after the handler returns."""
    ctx = Ctx()

    async def invocation():
        with env.given(ctx=ctx):
            for moment in (NINE, NINE_ONE):
                await tick_at(db, [every_minute(action)], moment)
        await asyncio.gather(*ctx.handed)

    run(invocation())


def test_work_handed_to_wait_until_that_fails_is_logged_and_leaves_its_run_succeeded(caplog):
    db = open_store()

    async def notify():
        raise ConnectionError("the mail relay is down")

    async def census():
        wait_until(notify())

    run_then_what_it_handed_over(db, census)
    assert runs(db)[-1]["outcome"] == Outcome.SUCCEEDED
    assert "work handed to wait_until failed: ConnectionError: the mail relay is down" in caplog.text


def test_on_success_write_in_work_handed_to_wait_until_says_the_run_has_ended(caplog):
    db = open_store()

    async def later():
        on_success.write(CHORE, "late", clock.now_ms)

    async def census():
        wait_until(later())

    run_then_what_it_handed_over(db, census)
    assert chores(db) == []
    assert "on_success.write after its run ended: its end is recorded already" in caplog.text


# --- the tick's statement cap counts a run's writes ------------------------------------------

def writing_under_a_cap(db, count: int, cap: int) -> int:
    """Two ticks, the second under a cap of `cap` statements, of a run writing `count` chores on
    success; the statements the second made."""
    async def census():
        for n in range(count):
            on_success.write(CHORE, f"chore {n}", clock.now_ms)

    ticks(db, [every_minute(census)], NINE)
    before = db.statements_run
    ticks(db, [every_minute(census)], NINE_ONE, max_statements=cap)
    return db.statements_run - before


def test_a_run_whose_on_success_writes_do_not_fit_the_ticks_statement_cap_fails_saying_so_and_writes_none():
    db = open_store()
    assert writing_under_a_cap(db, 40, cap=30) <= 30
    assert chores(db) == []
    census_run = runs(db)[-1]
    assert (census_run["outcome"], census_run["code"]) == (Outcome.FAILED, Code.INTERNAL_FAULT)
    assert "its 40 on_success writes take 41 statements, more than the tick has left" in census_run["detail"]


def test_on_success_writes_that_fit_the_ticks_statement_cap_commit():
    db = open_store()
    writing_under_a_cap(db, 20, cap=30)
    assert len(chores(db)) == 20
    assert runs(db)[-1]["outcome"] == Outcome.SUCCEEDED
