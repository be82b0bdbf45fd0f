"""Issue 25, "Overlap policy": what a due time that finds the schedule's previous run still going
does. `overlap: skip` (the rule of `every:` and pulses, the schedules document's "skips it rather
than queueing it"), `overlap: buffer` (it waits, at most one, and runs as soon as that run ends: a
calendar's rule); unset, the kind's own rule. In .jadpo, the decorators and every items.* call."""

import json

import pytest
from helpers import (
    Blocking, calendar, lose_a_run, lost_run, open_store, run, runs, state, ticks, while_first_call_runs,
)
from test_build import ACTIONS, CENSUS, codes, project
from test_retries_backfill_and_alerts_together import connections, race

from faults import Wrapped, at
from tickwork import Schedule
from tickwork.errors import ScheduleError
from tickwork.grid import Every
from tickwork.model import Code, Outcome
from tickwork.per_item import Items
from tickwork.times import MINUTE, utc
from tickwork_build.build import build


def buffered(action, name="census", minutes=10) -> Schedule:
    return Schedule(name, Every(minutes * MINUTE), action, overlap="buffer")


def outcomes(db, name="census"):
    return [(r["due_at"], r["outcome"], r["code"]) for r in runs(db, name)]


# -- the tick's rule ---------------------------------------------------------------------------

def test_an_every_schedule_by_default_skips_a_due_time_its_run_still_holds(db):
    slow = Blocking()
    census = Schedule("census", Every(10 * MINUTE), slow)
    ticks(db, [census], utc("2026-03-02 09:00"))
    [held], _ = while_first_call_runs(db, [census], slow, utc("2026-03-02 09:10"), [utc("2026-03-02 09:20")],
                                      after=[utc("2026-03-02 09:21")])
    assert [(r.outcome, r.code) for r in held.runs] == [(Outcome.SKIPPED, Code.RUNNING)]
    assert [c["now"] for c in slow.made] == [utc("2026-03-02 09:10")]


def test_a_buffered_due_time_waits_for_the_run_it_found_going_and_runs_at_the_first_tick_after_its_end(db):
    slow = Blocking()
    census = buffered(slow)
    ticks(db, [census], utc("2026-03-02 09:00"))
    [held], [after] = while_first_call_runs(db, [census], slow, utc("2026-03-02 09:10"), [utc("2026-03-02 09:20")],
                                            after=[utc("2026-03-02 09:21")])
    assert held.runs == []  # neither run nor skipped: it waits
    assert [(r.outcome, r.due_at) for r in after.runs] == [(Outcome.SUCCEEDED, utc("2026-03-02 09:20"))]
    assert [c["now"] for c in slow.made] == [utc("2026-03-02 09:10"), utc("2026-03-02 09:21")]
    assert outcomes(db) == [(utc("2026-03-02 09:10"), Outcome.SUCCEEDED, None),
                            (utc("2026-03-02 09:20"), Outcome.SUCCEEDED, None)]
    assert state(db).due_at == utc("2026-03-02 09:30")  # the grid goes on from the due time it made


def test_at_most_one_due_time_waits_however_many_come_while_the_run_goes_on(db):
    slow = Blocking()
    census = buffered(slow, minutes=5)
    ticks(db, [census], utc("2026-03-02 09:00"))
    during = [utc("2026-03-02 09:10"), utc("2026-03-02 09:15")]  # the lease runs to 09:20
    [one, other], [after] = while_first_call_runs(db, [census], slow, utc("2026-03-02 09:05"), during,
                                                  after=[utc("2026-03-02 09:16")])
    assert one.runs == other.runs == []
    assert [r.due_at for r in after.runs] == [utc("2026-03-02 09:10")]  # one run for both, as missed ticks are
    assert [c["now"] for c in slow.made] == [utc("2026-03-02 09:05"), utc("2026-03-02 09:16")]
    assert len(runs(db)) == 2
    assert state(db).due_at == utc("2026-03-02 09:20")


def test_a_calendar_told_to_skip_records_the_moment_its_run_still_holds_skipped_running(db):
    slow = Blocking()
    tenly = calendar("*/10 * * * *", name="tenly", action=slow)
    tenly = Schedule(tenly.name, tenly.timing, slow, overlap="skip")
    ticks(db, [tenly], utc("2026-01-05 08:55"))
    [held], [after] = while_first_call_runs(db, [tenly], slow, utc("2026-01-05 09:00"), [utc("2026-01-05 09:10")],
                                            after=[utc("2026-01-05 09:12")])
    assert [(r.outcome, r.code) for r in held.runs] == [(Outcome.SKIPPED, Code.RUNNING)]
    assert after.runs == []  # 09:10 was dealt with: skipped
    assert [c["at"] for c in slow.made] == [utc("2026-01-05 09:00")]


# -- racing tickers, one killed at each of its calls --------------------------------------------

def _operations(tmp_path) -> list[tuple[str | None, int]]:
    """The calls a tick makes that claims a buffered due time and ends its run, fault-free."""
    db = Wrapped(open_store(tmp_path / "plain.sqlite"))
    census = buffered(Blocking())
    census.action.release.set()
    ticks(db, [census], utc("2026-03-02 09:00"))
    db.made.clear()
    ticks(db, [census], utc("2026-03-02 09:10"))
    return sorted({op for op in db.operations() if op[0] is not None})


def test_racing_tickers_never_make_two_runs_of_a_due_time_nor_lose_the_buffered_one_whichever_call_a_kill_follows(
        tmp_path):
    nine = utc("2026-03-02 09:00")
    for k, killed_at in enumerate(_operations(tmp_path)):
        dbs = connections(tmp_path / f"d1-{k}.sqlite")
        db = dbs[0]
        census = buffered(Blocking())
        census.action.release.set()
        ticks(db, [census], nine)
        race(dbs[:1], [census], nine + 10 * MINUTE, killed_after=at(*killed_at))  # 09:10's ticker dies
        lost = [r for r in runs(db) if r["outcome"] == Outcome.RUNNING]
        for minute in (20, 21, 30, 31, 40, 41):  # 09:20 finds 09:10's run held, or made, or still due
            race(dbs, [census], nine + minute * MINUTE)
        made = outcomes(db)
        dues = [due for due, _, _ in made]
        assert len(dues) == len(set(dues)), (killed_at, made)  # each due time once, among eight tickers
        assert all(code in (None, Code.LEASE_EXPIRED) for _, _, code in made), (killed_at, made)  # none skipped
        if lost:  # killed with its run going: 09:20 waited for the lapse, and was made, once
            assert (nine + 20 * MINUTE, Outcome.SUCCEEDED, None) in made, (killed_at, made)
            assert (nine + 10 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED) in made, (killed_at, made)
    assert killed_at == ("probe", 1)


def test_a_buffered_due_time_whose_own_ticker_is_killed_is_not_made_twice(tmp_path):
    nine = utc("2026-03-02 09:00")
    dbs = connections(tmp_path / "d1.sqlite")
    db = dbs[0]
    slow = Blocking()
    census = buffered(slow)
    ticks(db, [census], nine)
    while_first_call_runs(db, [census], slow, nine + 10 * MINUTE, [nine + 20 * MINUTE])
    race(dbs[:1], [census], nine + 21 * MINUTE, killed_after=at("claim"))  # the buffered run, its ticker killed
    for minute in (22, 30, 40, 41, 50):
        race(dbs, [census], nine + minute * MINUTE)
    made = outcomes(db)
    assert made[:3] == [(nine + 10 * MINUTE, Outcome.SUCCEEDED, None),
                        (nine + 20 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED),
                        (nine + 30 * MINUTE, Outcome.SUCCEEDED, None)]  # 09:30 waited behind the lost run, once
    assert len({due for due, _, _ in made}) == len(made)
    [made_late] = [r for r in runs(db) if r["due_at"] == nine + 30 * MINUTE]
    assert made_late["tick_at"] == nine + 40 * MINUTE  # the first tick after the lapse


# -- where it is declared -----------------------------------------------------------------------

def with_items(items: str) -> str:
    return CENSUS.replace("every: 15m", f"every: 15m\n        {items}")


def test_overlap_buffer_is_written_to_the_manifest_and_read_by_the_runtime(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": with_items("overlap: buffer")})).schedules
    assert spec.manifest_entry()["overlap"] == "buffer"
    assert spec.overlap == "buffer"


def test_a_schedule_without_overlap_writes_none_so_old_manifests_read_as_before(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": CENSUS})).schedules
    assert "overlap" not in spec.manifest_entry()


@pytest.mark.parametrize("overlap", ["queue", "Buffer", "replace", "Allow"])
def test_an_overlap_other_than_skip_buffer_or_allow_is_overlap_invalid(tmp_path, overlap):
    assert codes(project(tmp_path, {"c.jadpo": with_items(f"overlap: {overlap}")})) == [
        ("schedule.overlap_invalid", "chore_census", 5)]


def test_the_decorators_take_overlap(tmp_path):
    decorated = ACTIONS + (
        '\nfrom tickwork import calendar, pulse, schedule\n'
        '@calendar("0 9 1 * *", overlap="skip")\nasync def monthly_statement():\n    pass\n'
        '@pulse(cycle="1h", overlap="buffer")\nasync def sweep():\n    pass\n'
        '@schedule(every="15m", overlap="buffer")\nasync def tidy():\n    pass\n')
    specs = {s.name: s for s in build(project(tmp_path, {}, actions=decorated)).schedules}
    assert [specs[n].overlap for n in ("monthly_statement", "sweep", "tidy")] == ["skip", "buffer", "buffer"]


async def send_statement():
    pass


def test_every_items_call_keeps_overlap_in_the_rows_timing(db):
    made = []
    for hand_over in (
        lambda hand: hand.every(send_statement, {"c": 1}, "1h", overlap="buffer"),
        lambda hand: hand.calendar(send_statement, {"c": 1}, "0 9 * * *", overlap="skip"),
        lambda hand: hand.every_many(send_statement, [{"c": 1}], "1h", overlap="buffer"),
        lambda hand: hand.calendar_many(send_statement, [{"c": 1}], "0 9 * * *", overlap="buffer"),
        lambda hand: hand.hand_over([{"action": send_statement, "input": {"c": 1}, "every": "1h",
                                      "overlap": "buffer"}]),
    ):
        store = open_store()
        run(hand_over(Items(store, lambda: utc("2026-03-01 12:00"))))
        [row] = run(store.all("SELECT timing FROM tickwork_schedules"))
        made.append(json.loads(row["timing"]).get("overlap"))
    assert made == ["buffer", "skip", "buffer", "buffer", "buffer"]


def test_a_hand_over_without_overlap_keeps_its_id():
    one, other = open_store(), open_store()
    plain = run(Items(one, lambda: utc("2026-03-01 12:00")).every(send_statement, {"c": 1}, "1h"))
    assert "overlap" not in json.loads(run(one.all("SELECT timing FROM tickwork_schedules"))[0]["timing"])
    buffering = run(Items(other, lambda: utc("2026-03-01 12:00")).every(send_statement, {"c": 1}, "1h",
                                                                         overlap="buffer"))
    assert plain != buffering


@pytest.mark.parametrize("call", [
    lambda hand: hand.every(send_statement, None, "1h", overlap="queue"),
    lambda hand: hand.every_many(send_statement, [None], "1h", overlap=3),
    lambda hand: hand.hand_over([{"action": send_statement, "input": None, "cron": "0 9 * * *", "overlap": "x"}]),
])
def test_a_handed_over_overlap_other_than_skip_or_buffer_is_refused_with_its_code(db, call):
    with pytest.raises(ScheduleError) as refused:
        run(call(Items(db, lambda: utc("2026-03-01 12:00"))))
    assert refused.value.code == "schedule.overlap_invalid"
    assert run(db.all("SELECT name FROM tickwork_schedules")) == []


SLOW = Blocking()


async def send_slowly():
    await SLOW()


def test_a_handed_over_schedule_buffers_as_its_timing_says(db):
    SLOW.__init__()
    run(Items(db, lambda: utc("2026-03-02 09:00")).every(send_slowly, {"c": 1}, "10m", overlap="buffer"))
    [row] = run(db.all("SELECT name FROM tickwork_schedules"))
    [held], [after] = while_first_call_runs(db, [], SLOW, utc("2026-03-02 09:10"), [utc("2026-03-02 09:20")],
                                            after=[utc("2026-03-02 09:21")])
    assert held.runs == []
    assert [(r.outcome, r.due_at) for r in after.runs] == [(Outcome.SUCCEEDED, utc("2026-03-02 09:20"))]
    assert len(SLOW.made) == 2
    assert len(runs(db, row["name"])) == 2


# -- why, history and the console say it -------------------------------------------------------

def _handed_over_buffering(db) -> str:
    run(Items(db, lambda: utc("2026-03-02 09:00")).every(send_slowly, {"c": 1}, "10m", overlap="buffer"))
    return run(db.all("SELECT name FROM tickwork_schedules"))[0]["name"]


def test_why_and_the_console_say_a_due_time_waits_behind_the_run_under_way(app):
    from console_fixtures import PREFIX, ask
    from test_the_console_pages import shown

    name = _handed_over_buffering(app.db)
    lose_a_run(app.db, name, utc("2026-03-02 09:10"), utc("2026-03-02 09:20"), utc("2026-03-02 09:25"))
    waiting = (f"the call due 2026-03-02 09:20 UTC is buffered behind the run under way "
               f"({lost_run(utc('2026-03-02 09:10'))}): it runs at the first tick after that run ends")
    _, answer, _ = app.run("why", name, now=utc("2026-03-02 09:21"))
    assert waiting in answer["notes"]
    assert "runs as soon as that run ends (`overlap: buffer`)" in answer["rule"]
    page = shown(ask(app.db, "GET", f"{PREFIX}/schedule?name={name}", now=utc("2026-03-02 09:21")))
    assert f"buffered {waiting}" in page
    assert "(`overlap: buffer`)" in page
    _, answer, _ = app.run("why", name, now=utc("2026-03-02 09:26"))  # lapsed: the next tick ends it first
    assert not any("buffered" in note for note in answer["notes"])


def test_history_and_the_console_say_which_run_was_buffered_behind_which(app):
    from console_fixtures import PREFIX, ask
    from test_the_console_pages import shown

    SLOW.__init__()
    name = _handed_over_buffering(app.db)
    while_first_call_runs(app.db, [], SLOW, utc("2026-03-02 09:10"), [utc("2026-03-02 09:20")],
                          after=[utc("2026-03-02 09:21"), utc("2026-03-02 09:30")])
    # the test's clock stands still inside a tick: the first run ended at 09:20:30, as a Worker's would
    run(app.db.all("UPDATE tickwork_runs SET ended_at = ?1 WHERE due_at = ?2",
                   (utc("2026-03-02 09:20") + 30_000, utc("2026-03-02 09:10"))))
    _, answer, _ = app.run("history", name, now=utc("2026-03-02 09:31"))
    assert [r["buffered_behind"] and r["buffered_behind"]["ms"] for r in answer["runs"]] == [
        None, utc("2026-03-02 09:10"), None]
    _, text, _ = app.run("history", name, now=utc("2026-03-02 09:31"), json_=False)
    assert "buffered behind 2026-03-02 09:10 UTC's run" in text
    page = shown(ask(app.db, "GET", f"{PREFIX}/schedule?name={name}", now=utc("2026-03-02 09:31")))
    assert page.count("buffered behind 2026-03-02 09:10 UTC's run") == 1


# -- what it costs -------------------------------------------------------------------------------

def test_a_tick_with_none_due_or_one_waiting_behind_its_run_stays_two_statements_in_one_round_trip(db):
    from test_statements_per_tick import FIRST_READ, cost

    schedules = [buffered(Blocking(), f"census_{n}", 15) for n in range(10)]
    ticks(db, schedules, utc("2026-03-02 09:00"))
    assert cost(db, utc("2026-03-02 09:14"), schedules) == (FIRST_READ, 1, 0)
    lose_a_run(db, "census_0", utc("2026-03-02 09:15"), utc("2026-03-02 09:30"), utc("2026-03-02 09:45"))
    assert cost(db, utc("2026-03-02 09:31"), schedules[:1]) == (FIRST_READ, 1, 0)  # 09:30 waits: no write


@pytest.mark.parametrize("overlap", ['"queue"', "3", "True"])
def test_a_decorators_overlap_other_than_skip_or_buffer_is_overlap_invalid(tmp_path, overlap):
    decorated = ACTIONS + (f'\nfrom tickwork import schedule\n'
                           f'@schedule(every="15m", overlap={overlap})\nasync def tidy():\n    pass\n')
    assert [code for code, *_ in codes(project(tmp_path, {}, actions=decorated))] == ["schedule.overlap_invalid"]


@pytest.mark.parametrize("killed_at", [("probe", 1), ("expire", 1), ("claim", 1)])
def test_a_ticker_killed_while_it_ends_the_lost_run_or_claims_the_buffered_due_time_loses_neither(tmp_path,
                                                                                                  killed_at):
    nine = utc("2026-03-02 09:00")
    dbs = connections(tmp_path / "d1.sqlite")
    db = dbs[0]
    census = buffered(Blocking())
    census.action.release.set()
    ticks(db, [census], nine)
    race(dbs[:1], [census], nine + 10 * MINUTE, killed_after=at("claim"))  # 09:10's run lost, its lease to 09:25
    race(dbs, [census], nine + 20 * MINUTE)  # 09:20 waits behind it
    race(dbs, [census], nine + 26 * MINUTE, killed_after=at(*killed_at))  # past the lapse: one of eight is killed
    for minute in (27, 28, 45, 46, 60):
        race(dbs, [census], nine + minute * MINUTE)
    made = outcomes(db)
    assert len({due for due, _, _ in made}) == len(made), made
    assert made[0] == (nine + 10 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED), made
    # 09:20 made once: it ran, or its ticker was the one killed and it lapsed in turn, never skipped
    assert made[1] in [(nine + 20 * MINUTE, Outcome.SUCCEEDED, None),
                       (nine + 20 * MINUTE, Outcome.FAILED, Code.LEASE_EXPIRED)], made


@pytest.mark.parametrize("overlap", [None, "skip", "buffer"])
def test_why_and_the_console_say_of_every_kind_what_the_tick_does_with_a_due_time_its_run_holds(overlap):
    import importlib

    from tickwork.kinds.forms import KINDS
    from tickwork.operating.overlap_words import buffers
    from tickwork.tick.plan import waits

    for kind in {kind.prefix: kind for kind in KINDS.values()}.values():
        timing = getattr(importlib.import_module(f"tickwork.kinds{kind.home}"), kind.timing_class)
        told = Schedule("s", timing.__new__(timing), None, overlap=overlap)  # type: ignore[arg-type]
        assert buffers(kind.prefix, {"overlap": overlap}) == waits(told), kind.prefix


def test_a_retry_of_a_due_time_is_not_said_to_be_buffered_behind_its_own_failed_attempt():
    from tickwork.operating.overlap_words import buffered_behind

    nine = utc("2026-03-02 09:00")
    failed = {"id": "r1", "due_at": nine, "started_at": nine, "ended_at": nine + 5_000}
    retried = {"id": "r2", "due_at": nine, "started_at": nine + MINUTE, "ended_at": nine + MINUTE + 5_000}

    assert buffered_behind([retried, failed]) == {}
