"""Issue 25, "Overlap policy", its third rule: `overlap: allow`. A due time that finds the previous
run still going is run anyway, side by side, while each (schedule, at) is still run exactly once:
the row's due time moves by a compare-and-set, as every claim's, and each run's record keeps its
own lease (migration 0030), by which a run whose worker was lost is found though a later run took
the row's. A pulse refuses it: the pulses document says a pulse is not called while its previous
call is still running."""

import asyncio
import json

from helpers import Blocking, open_store, run, runs, state, tick_at, ticks, while_first_call_runs
from test_build import ACTIONS, CENSUS, codes, project
from test_retries_backfill_and_alerts_together import connections, race

from faults import D1Error, Wrapped, at
from tickwork import Schedule
from tickwork.grid import Every
from tickwork.model import Code, Outcome, Retry
from tickwork.per_item import Items
from tickwork.times import HOUR, MINUTE, utc
from tickwork_build.build import build

NINE = utc("2026-03-02 09:00")


def allowed(action, name="census", minutes=10, **rules) -> Schedule:
    return Schedule(name, Every(minutes * MINUTE), action, overlap="allow", **rules)


def outcomes(db, name="census"):
    return [(r["due_at"], r["outcome"], r["code"]) for r in runs(db, name)]


class Hangs:
    """An action whose first `hanging` calls never end (a worker that goes on past its ticks)."""

    def __init__(self, hanging=1, fails=False):
        self.made, self.hanging, self.fails = [], hanging, fails

    async def __call__(self):
        self.made.append(len(self.made))
        if len(self.made) <= self.hanging:
            await asyncio.Event().wait()
        if self.fails:
            raise RuntimeError("down")


# -- the tick's rule ---------------------------------------------------------------------------

def test_an_allowed_due_time_runs_beside_the_run_it_finds_going(db):
    slow = Blocking()
    census = allowed(slow)
    ticks(db, [census], NINE)
    [beside], _ = while_first_call_runs(db, [census], slow, NINE + 10 * MINUTE, [NINE + 20 * MINUTE])
    assert [(r.outcome, r.due_at) for r in beside.runs] == [(Outcome.SUCCEEDED, NINE + 20 * MINUTE)]
    assert [c["now"] for c in slow.made] == [NINE + 10 * MINUTE, NINE + 20 * MINUTE]
    assert outcomes(db) == [(NINE + 10 * MINUTE, Outcome.SUCCEEDED, None),
                            (NINE + 20 * MINUTE, Outcome.SUCCEEDED, None)]
    assert state(db).due_at == NINE + 30 * MINUTE


def test_each_run_of_an_allowed_schedule_keeps_its_own_lease_and_no_other_run_does(db):
    slow = Blocking()
    census, plain = allowed(slow), Schedule("plain", Every(10 * MINUTE), Blocking())
    plain.action.release.set()
    ticks(db, [census, plain], NINE)
    while_first_call_runs(db, [census, plain], slow, NINE + 10 * MINUTE, [NINE + 20 * MINUTE])
    leases = run(db.all("SELECT schedule, lease_until FROM tickwork_runs ORDER BY schedule, due_at"))
    assert [r["lease_until"] is not None for r in leases if r["schedule"] == "census"] == [True, True]
    assert [r["lease_until"] for r in leases if r["schedule"] == "plain"] == [None]


def test_a_run_beside_another_whose_worker_was_lost_is_recorded_lease_expired_and_retried_beside_the_next(tmp_path):
    dbs = connections(tmp_path / "d1.sqlite")
    db = dbs[0]
    census = allowed(Hangs(hanging=0), retry=Retry(1, MINUTE))
    ticks(db, [census], NINE)
    race(dbs[:1], [census], NINE + 10 * MINUTE, killed_after=at("claim"))  # 09:10's worker is lost
    for minute in (20, 27, 28, 30, 40, 50):  # its lease lapses by 09:27; the row's went to 09:20's meanwhile
        race(dbs, [census], NINE + minute * MINUTE)
    made = [(r["due_at"], r["outcome"], r["code"], r["attempt"] or 1, r["tick_at"]) for r in runs(db)]
    assert (NINE + 10 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED, 1, NINE + 10 * MINUTE) in made
    assert (NINE + 20 * MINUTE, Outcome.SUCCEEDED, None, 1, NINE + 20 * MINUTE) in made  # not held up by it
    assert (NINE + 10 * MINUTE, Outcome.SUCCEEDED, None, 2, NINE + 28 * MINUTE) in made  # its retry, a minute on
    assert sorted((due, attempt) for due, _, _, attempt, _ in made) == [
        (NINE + 10 * MINUTE, 1), (NINE + 10 * MINUTE, 2), (NINE + 20 * MINUTE, 1), (NINE + 30 * MINUTE, 1),
        (NINE + 40 * MINUTE, 1), (NINE + 50 * MINUTE, 1)]


def test_a_retry_of_an_allowed_schedule_runs_beside_the_next_due_times_run(db):
    class FailsFirst(Blocking):
        async def __call__(self):
            await super().__call__()
            if len(self.made) == 2:
                raise RuntimeError("down")

    action = FailsFirst()
    census = allowed(action, retry=Retry(1, MINUTE))
    ticks(db, [census], NINE)
    # 09:10's run goes on; 09:20's fails beside it, and its retry at 09:21 runs beside it too
    while_first_call_runs(db, [census], action, NINE + 10 * MINUTE, [NINE + 20 * MINUTE, NINE + 21 * MINUTE])
    assert [(r["due_at"], r["outcome"], r["attempt"] or 1, r["tick_at"]) for r in runs(db)] == [
        (NINE + 10 * MINUTE, Outcome.SUCCEEDED, 1, NINE + 10 * MINUTE),
        (NINE + 20 * MINUTE, Outcome.FAILED, 1, NINE + 20 * MINUTE),
        (NINE + 20 * MINUTE, Outcome.SUCCEEDED, 2, NINE + 21 * MINUTE)]


def test_a_schedule_without_allow_still_waits_or_skips_as_its_rule_says(db):
    slow = Blocking()
    census = Schedule("census", Every(10 * MINUTE), slow)
    ticks(db, [census], NINE)
    [held], _ = while_first_call_runs(db, [census], slow, NINE + 10 * MINUTE, [NINE + 20 * MINUTE])
    assert [(r.outcome, r.code) for r in held.runs] == [(Outcome.SKIPPED, Code.RUNNING)]


SLOW = Blocking()


async def send_slowly():
    await SLOW()


def test_times_counts_each_call_of_runs_side_by_side(db):
    SLOW.__init__()
    slow = SLOW
    run(Items(db, lambda: NINE).every(send_slowly, {"c": 1}, "10m", overlap="allow", times=2))
    [row] = run(db.all("SELECT name FROM tickwork_schedules"))
    while_first_call_runs(db, [], slow, NINE + 10 * MINUTE, [NINE + 20 * MINUTE], after=[NINE + 30 * MINUTE])
    assert [r["outcome"] for r in runs(db, row["name"])] == [Outcome.SUCCEEDED, Outcome.SUCCEEDED]
    [ended] = run(db.all("SELECT ended, calls_made FROM tickwork_schedules"))
    assert (ended["ended"], ended["calls_made"]) == ("made_its_calls", 2)  # both counted, the first beside the second


# -- racing tickers, one killed at each of its calls --------------------------------------------

def _operations(tmp_path) -> list[tuple[str | None, int]]:
    """The calls a tick makes that claims an allowed due time beside a run going on, fault-free."""
    db = Wrapped(open_store(tmp_path / "plain.sqlite"))
    census = allowed(Hangs(hanging=0))
    ticks(db, [census], NINE)
    db.made.clear()
    ticks(db, [census], NINE + 10 * MINUTE)
    return sorted({op for op in db.operations() if op[0] is not None})


def test_racing_tickers_make_each_allowed_due_time_once_and_lose_none_whichever_call_a_kill_follows(tmp_path):
    operations = _operations(tmp_path)
    for k, killed_at in enumerate(operations):
        dbs = connections(tmp_path / f"d1-{k}.sqlite")
        db = dbs[0]
        census = allowed(Hangs(hanging=0))
        ticks(db, [census], NINE)
        race(dbs[:1], [census], NINE + 10 * MINUTE, killed_after=at(*killed_at))  # 09:10's ticker dies
        for minute in (20, 21, 30, 31, 40, 41, 50):
            race(dbs, [census], NINE + minute * MINUTE)
        made = outcomes(db)
        dues = [due for due, _, _ in made]
        assert len(dues) == len(set(dues)), (killed_at, made)  # each due time once, among eight tickers
        assert set(dues) >= {NINE + m * MINUTE for m in (30, 40, 50)}, (killed_at, made)  # none lost
        assert all(code in (None, Code.LEASE_EXPIRED) for _, _, code in made), (killed_at, made)  # none skipped
        # 09:20 made at its own tick (with 09:10, where its ticker died before the claim), never held up
        assert [r["outcome"] for r in runs(db) if r["tick_at"] == NINE + 20 * MINUTE] == [Outcome.SUCCEEDED], killed_at
    assert ("claim", 1) in operations


def test_racing_tickers_claiming_beside_a_lost_run_make_each_due_time_once_whichever_call_a_kill_follows(tmp_path):
    for k, killed_at in enumerate(_operations(tmp_path)):
        dbs = connections(tmp_path / f"d1-{k}.sqlite")
        db = dbs[0]
        census = allowed(Hangs(hanging=0))
        ticks(db, [census], NINE)
        race(dbs[:1], [census], NINE + 10 * MINUTE, killed_after=at("claim"))  # 09:10's run lost, its lease held
        race(dbs, [census], NINE + 20 * MINUTE, killed_after=at(*killed_at))  # 09:20 beside it: one ticker dies
        for minute in (21, 27, 30, 31, 40):
            race(dbs, [census], NINE + minute * MINUTE)
        made = outcomes(db)
        assert len({due for due, _, _ in made}) == len(made), (killed_at, made)
        assert made[0] == (NINE + 10 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED), (killed_at, made)
        assert {due for due, _, _ in made} >= {NINE + m * MINUTE for m in (20, 30, 40)}, (killed_at, made)
        assert all(code in (None, Code.LEASE_EXPIRED) for _, _, code in made), (killed_at, made)


# -- where it is declared -----------------------------------------------------------------------

def with_items(items: str) -> str:
    return CENSUS.replace("every: 15m", f"every: 15m\n        {items}")


def test_overlap_allow_is_written_to_the_manifest_and_read_by_the_runtime(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": with_items("overlap: allow")})).schedules
    assert spec.manifest_entry()["overlap"] == "allow"


def test_the_decorators_take_overlap_allow_and_a_pulse_refuses_it_with_its_code(tmp_path):
    decorated = ACTIONS + (
        '\nfrom tickwork import calendar, schedule\n'
        '@calendar("0 9 1 * *", overlap="allow")\nasync def monthly_statement():\n    pass\n'
        '@schedule(every="15m", overlap="allow")\nasync def tidy():\n    pass\n')
    specs = {s.name: s for s in build(project(tmp_path, {}, actions=decorated)).schedules}
    assert [specs[n].overlap for n in ("monthly_statement", "tidy")] == ["allow", "allow"]
    pulsing = ACTIONS + ('\nfrom tickwork import pulse\n'
                         '@pulse(cycle="1h", overlap="allow")\nasync def sweep():\n    pass\n')
    assert [code for code, *_ in codes(project(tmp_path / "p", {}, actions=pulsing))] == ["schedule.overlap_pulse"]


async def send_statement():
    pass


def test_every_items_call_takes_overlap_allow(db):
    made = []
    for hand_over in (
        lambda hand: hand.every(send_statement, {"c": 1}, "1h", overlap="allow"),
        lambda hand: hand.calendar(send_statement, {"c": 1}, "0 9 * * *", overlap="allow"),
        lambda hand: hand.every_many(send_statement, [{"c": 1}], "1h", overlap="allow"),
        lambda hand: hand.calendar_many(send_statement, [{"c": 1}], "0 9 * * *", overlap="allow"),
        lambda hand: hand.hand_over([{"action": send_statement, "input": {"c": 1}, "every": "1h",
                                      "overlap": "allow"}]),
    ):
        store = open_store()
        run(hand_over(Items(store, lambda: utc("2026-03-01 12:00"))))
        [row] = run(store.all("SELECT timing FROM tickwork_schedules"))
        made.append(json.loads(row["timing"]).get("overlap"))
    assert made == ["allow"] * 5


# -- what it costs -------------------------------------------------------------------------------

def test_a_tick_with_none_due_beside_a_run_going_on_stays_two_statements_in_one_round_trip(db):
    from test_statements_per_tick import FIRST_READ, cost

    schedules = [allowed(Hangs(hanging=0), f"census_{n}", 15) for n in range(10)]
    ticks(db, schedules, NINE)
    assert cost(db, NINE + 14 * MINUTE, schedules) == (FIRST_READ, 1, 0)


def test_a_hanging_run_beside_others_is_recorded_lease_expired_once_its_own_lease_lapses(db):
    hangs = Hangs(hanging=1)
    census = allowed(hangs)
    ticks(db, [census], NINE)

    async def going():
        first = asyncio.create_task(tick_at(db, [census], NINE + 10 * MINUTE))
        while not hangs.made:
            await asyncio.sleep(0)
        first.cancel()  # its worker is gone, the record left running
        await asyncio.gather(first, return_exceptions=True)

    run(going())
    for minute in (20, 30, 40, 50):
        ticks(db, [census], NINE + minute * MINUTE)
    assert outcomes(db)[0] == (NINE + 10 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED)
    assert [o for _, o, _ in outcomes(db)[1:]] == [Outcome.SUCCEEDED] * 4


# -- why, history and the console say it -------------------------------------------------------

def _handed_over_allowed(db) -> str:
    run(Items(db, lambda: NINE).every(send_slowly, {"c": 1}, "10m", overlap="allow"))
    return run(db.all("SELECT name FROM tickwork_schedules"))[0]["name"]


def test_why_and_the_console_say_the_next_due_time_runs_beside_the_run_under_way(app):
    from console_fixtures import PREFIX, ask
    from helpers import lose_a_run, lost_run
    from test_the_console_pages import shown

    name = _handed_over_allowed(app.db)
    lose_a_run(app.db, name, NINE + 10 * MINUTE, NINE + 20 * MINUTE, NINE + 25 * MINUTE)
    beside = (f"the call due 2026-03-02 09:20 UTC runs beside the run under way ({lost_run(NINE + 10 * MINUTE)}), "
              "at its tick: each due time once, side by side (`overlap: allow`)")
    _, answer, _ = app.run("why", name, now=NINE + 15 * MINUTE)
    assert beside in answer["notes"]
    assert "runs beside it, side by side, each due time once (`overlap: allow`)" in answer["rule"]
    page = shown(ask(app.db, "GET", f"{PREFIX}/schedule?name={name}", now=NINE + 15 * MINUTE))
    assert f"beside {beside}" in page


def test_history_and_the_console_say_which_run_ran_beside_which(app):
    from console_fixtures import PREFIX, ask
    from test_the_console_pages import shown

    SLOW.__init__()
    name = _handed_over_allowed(app.db)
    while_first_call_runs(app.db, [], SLOW, NINE + 10 * MINUTE, [NINE + 20 * MINUTE], after=[NINE + 30 * MINUTE])
    # the test's clock stands still inside a tick: the first run ended at 09:20:30, as a Worker's would
    run(app.db.all("UPDATE tickwork_runs SET ended_at = ?1 WHERE due_at = ?2", (NINE + 20 * MINUTE + 30_000,
                                                                              NINE + 10 * MINUTE)))
    _, answer, _ = app.run("history", name, now=NINE + 31 * MINUTE)
    assert [r["ran_beside"] and r["ran_beside"]["ms"] for r in answer["runs"]] == [None, NINE + 10 * MINUTE, None]
    _, text, _ = app.run("history", name, now=NINE + 31 * MINUTE, json_=False)
    assert "ran beside 2026-03-02 09:10 UTC's run" in text
    page = shown(ask(app.db, "GET", f"{PREFIX}/schedule?name={name}", now=NINE + 31 * MINUTE))
    assert page.count("ran beside 2026-03-02 09:10 UTC's run") == 1


def test_runs_one_after_another_are_not_said_to_run_beside_each_other():
    from tickwork.operating.overlap_words import ran_beside

    first = {"id": "r1", "due_at": NINE, "started_at": NINE, "ended_at": NINE + 5_000}
    second = {"id": "r2", "due_at": NINE + MINUTE, "started_at": NINE + MINUTE, "ended_at": NINE + MINUTE + 5_000}
    lost = {"id": "r3", "due_at": NINE + 2 * MINUTE, "started_at": NINE + 2 * MINUTE, "ended_at": None}
    later = {"id": "r4", "due_at": NINE + 3 * MINUTE, "started_at": NINE + 3 * MINUTE, "ended_at": None}

    assert ran_beside([later, lost, second, first]) == {"r4": NINE + 2 * MINUTE}


def test_a_lost_run_beside_a_later_one_starts_its_schedule_failing_as_any_lost_run_does(db):
    from harness import FakeQueue
    from test_failures_announced import alerting, kept

    queue = FakeQueue()
    hangs = Hangs(hanging=1)
    census = allowed(hangs)
    ticks(db, [census], NINE, **alerting(db, queue))

    async def lost():
        first = asyncio.create_task(tick_at(db, [census], NINE + 10 * MINUTE, **alerting(db, queue)))
        while not hangs.made:
            await asyncio.sleep(0)
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)

    run(lost())
    for minute in (20, 30):  # 09:20's run takes the row's lease; 09:30 finds 09:10's own lapsed
        ticks(db, [census], NINE + minute * MINUTE, **alerting(db, queue, at=NINE + minute * MINUTE))
    assert outcomes(db)[0] == (NINE + 10 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED)
    failing = [body["code"] for name, body in kept(db) if name == "tickwork.schedule_failing"]
    assert failing == ["lease_expired"]


def test_pause_skips_an_allowed_due_time_and_a_backfill_waits_for_the_run_going_as_for_any_schedule(app):
    from helpers import lose_a_run

    SLOW.__init__()
    SLOW.release.set()
    name = _handed_over_allowed(app.db)
    lose_a_run(app.db, name, NINE + 10 * MINUTE, NINE + 20 * MINUTE, NINE + 40 * MINUTE)  # goes on until 09:40
    app.run("pause", name, now=NINE + 15 * MINUTE)
    app.tick([], NINE + 20 * MINUTE)
    app.run("resume", name, now=NINE + 25 * MINUTE)
    app.run("backfill", name, "--from", "2026-03-02T08:00Z", "--to", "2026-03-02T08:50Z", now=NINE + 25 * MINUTE)
    app.tick([], NINE + 30 * MINUTE)
    made = [(r["due_at"], r["outcome"], r["code"]) for r in runs(app.db, name) if r["backfill"] is None]
    assert made[1:] == [(NINE + 20 * MINUTE, Outcome.SKIPPED, Code.PAUSED),
                        (NINE + 30 * MINUTE, Outcome.SUCCEEDED, None)]  # beside the 09:10 run still going
    assert [r for r in runs(app.db, name) if r["backfill"] is not None] == []  # it waits for that run's end


# -- what a lost run beside a later one still holds ----------------------------------------------

def test_a_removed_items_row_stays_while_a_run_beside_holds_its_own_lease_and_that_run_is_found_lapsed(app):
    from helpers import lose_a_run, lost_run

    from tickwork.tick.budget import Budget
    from tickwork.tick.housekeeping import housekeeping

    SLOW.__init__()
    SLOW.release.set()
    name = _handed_over_allowed(app.db)
    lose_a_run(app.db, name, NINE + 10 * MINUTE, NINE + 20 * MINUTE, NINE + 25 * MINUTE, beside=True)
    app.tick([], NINE + 20 * MINUTE)  # 09:20's run beside it takes the row's lease, and ends
    run(app.db.all("UPDATE tickwork_schedules SET removed_at = ?1 WHERE name = ?2", (NINE + 21 * MINUTE, name)))

    def purge(now):
        run(app.db.all("UPDATE tickwork_app SET housekeeping_done_at = NULL"))
        run(housekeeping(app.db, Budget(app.db, now, now, MINUTE, lambda: 0.0, None), "tick-1", retention=0))
        return run(app.db.all("SELECT name FROM tickwork_schedules WHERE name = ?1", (name,)))

    assert purge(NINE + 22 * MINUTE) == [{"name": name}]  # 09:10's run still holds its own lease
    app.tick([], NINE + 30 * MINUTE)
    [lost] = [r for r in runs(app.db, name) if r["id"] == lost_run(NINE + 10 * MINUTE)]
    assert (lost["outcome"], lost["code"]) == (Outcome.FAILED, Code.LEASE_EXPIRED)
    assert purge(NINE + 31 * MINUTE) == []


class TakenBesideBeforeReadBack(Wrapped):
    """A database whose claim batch lands, then answers an error; meanwhile another ticker claims
    the next due time beside the run the batch took, and with it the row's lease."""

    def __init__(self, inner, other, schedules, when):
        super().__init__(inner)
        self.other, self.schedules, self.when, self.raced = other, schedules, when, False

    async def _call(self, call, send):
        result = await send()
        if call.operation == "claim" and not self.raced:
            self.raced = True
            await tick_at(self.other, self.schedules, self.when)
            raise D1Error("D1_ERROR: the claim batch timed out after it committed")
        return result


def test_a_claim_beside_read_back_after_an_error_runs_though_a_later_run_took_the_rows_lease(tmp_path):
    dbs = connections(tmp_path / "d1.sqlite")
    action = Blocking()
    action.release.set()
    census = allowed(action)
    ticks(dbs[0], [census], NINE)
    run(tick_at(TakenBesideBeforeReadBack(dbs[0], dbs[1], [census], NINE + 20 * MINUTE), [census], NINE + 10 * MINUTE))
    assert sorted(c["now"] for c in action.made) == [NINE + 10 * MINUTE, NINE + 20 * MINUTE]
    assert outcomes(dbs[0]) == [(NINE + 10 * MINUTE, Outcome.SUCCEEDED, None),
                                (NINE + 20 * MINUTE, Outcome.SUCCEEDED, None)]


def test_a_run_beside_that_fails_while_another_runs_retry_is_pending_is_recorded_failed_and_not_retried(db):
    class Fails(Blocking):
        async def __call__(self):
            await super().__call__()
            raise RuntimeError("down")

    action = Fails()
    census = allowed(action, retry=Retry(1, 5 * MINUTE))
    ticks(db, [census], NINE)
    # 09:20's run fails beside 09:10's, its retry pending for 09:25; then 09:10's fails: one pending retry a row
    while_first_call_runs(db, [census], action, NINE + 10 * MINUTE, [NINE + 20 * MINUTE],
                          after=[NINE + 25 * MINUTE, NINE + 30 * MINUTE])
    assert sorted((r["due_at"], r["attempt"] or 1, r["tick_at"]) for r in runs(db)) == [
        (NINE + 10 * MINUTE, 1, NINE + 10 * MINUTE),
        (NINE + 20 * MINUTE, 1, NINE + 20 * MINUTE), (NINE + 20 * MINUTE, 2, NINE + 25 * MINUTE),
        (NINE + 30 * MINUTE, 1, NINE + 30 * MINUTE)]
    assert {r["outcome"] for r in runs(db)} == {Outcome.FAILED}



def test_runs_started_at_one_instant_as_a_backfills_few_a_tick_are_read_and_not_said_beside_each_other():
    from tickwork.operating.overlap_words import ran_beside

    first = {"id": "r1", "due_at": NINE, "started_at": NINE + HOUR, "ended_at": NINE + HOUR + 5_000}
    second = {"id": "r2", "due_at": NINE + MINUTE, "started_at": NINE + HOUR, "ended_at": None}
    assert ran_beside([second, first]) == {}


def test_a_plain_schedules_end_in_a_batch_with_one_beside_takes_its_own_statements_not_the_besides():
    from tickwork.store.ends import (
        COUNT_CALLS, COUNT_CALLS_BESIDE, SCHEDULE_RETRIES, SCHEDULE_RETRIES_BESIDE, End, end_statements)

    plain = End("plain", "r1", Outcome.FAILED, "internal_fault", None, "down", NINE, retry=NINE + MINUTE, attempt=2,
                times=3)
    beside = End("census", "r2", Outcome.FAILED, "internal_fault", None, "down", NINE, retry=NINE + MINUTE, attempt=2,
                 times=3, beside=True)
    made = [(sql, [row[0] for row in json.loads(params[0])]) for sql, params in end_statements([plain, beside])
            if sql in (SCHEDULE_RETRIES, SCHEDULE_RETRIES_BESIDE, COUNT_CALLS, COUNT_CALLS_BESIDE)]
    assert made == [(SCHEDULE_RETRIES, ["plain"]), (COUNT_CALLS, ["plain"]),
                    (SCHEDULE_RETRIES_BESIDE, ["census"]), (COUNT_CALLS_BESIDE, ["census"])]


def test_a_backfill_waits_for_a_run_going_beside_though_a_later_run_ended_and_gave_the_rows_lease_back(app):
    from helpers import lose_a_run

    SLOW.__init__()
    SLOW.release.set()
    name = _handed_over_allowed(app.db)
    lose_a_run(app.db, name, NINE + 10 * MINUTE, NINE + 20 * MINUTE, NINE + 40 * MINUTE, beside=True)
    app.tick([], NINE + 20 * MINUTE)  # 09:20's run beside it takes the row's lease, and ends
    app.run("backfill", name, "--from", "2026-03-02T09:05Z", "--to", "2026-03-02T09:15Z", now=NINE + 21 * MINUTE)
    app.tick([], NINE + 22 * MINUTE)  # 09:10's run still goes on its own lease: its at is not made twice
    assert [r for r in runs(app.db, name) if r["backfill"] is not None] == []


def test_an_allowed_row_naming_a_concurrency_key_waits_for_its_run_going_at_a_nothing_due_ticks_cost(db):
    from helpers import lose_a_run
    from test_statements_per_tick import FIRST_READ, cost

    run(Items(db, lambda: NINE).every(send_statement, {"c": 1}, "10m", overlap="allow", concurrency=("k", 2)))
    name = run(db.all("SELECT name FROM tickwork_schedules"))[0]["name"]
    lose_a_run(db, name, NINE + 10 * MINUTE, NINE + 20 * MINUTE, NINE + 25 * MINUTE)
    assert cost(db, NINE + 20 * MINUTE, []) == (FIRST_READ, 1, 0)  # its key counts one run a row: it waits
    ticks(db, [], NINE + 30 * MINUTE)  # the lost run found lapsed, the due time made
    assert [r["outcome"] for r in runs(db, name)] == [Outcome.FAILED, Outcome.SUCCEEDED]
