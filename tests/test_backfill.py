"""Issue 17, "Backfill": `tickwork backfill NAME --from T --to T` makes every occurrence in the
range without a succeeded run, oldest first, each once per (schedule, at) however ticks race, a
few a tick, recorded as a backfill with who asked; `--dry-run` lists them; it can be cancelled."""

import asyncio
import random
from math import ceil

import pytest
from faults import Killed, Meanwhile, Wrapped, first_with
from harness import FakeQueue, OperatorHarness
from helpers import Inputs, calendar, every, pulse, run, runs, tick_at, ticks
from test_schedules_handed_over_in_bulk import customers, send_statement, small_statements
from test_the_outbox import order_placed, outbox

from tickwork import Schedule, call, items
from tickwork.backfill import LOOKAHEAD, READS, ROUNDS, Refused
from tickwork.adapters.workers import TICK_STATEMENTS
from tickwork.errors import ScheduleError
from tickwork.backfill_store import CLAIM_STATEMENTS, RECORD_STARTS, TAKE_LEASES
from tickwork.grid import Every
from tickwork.pulses import Pulse
from tickwork.schedule_store import MARK_TICK
from tickwork.tick import ENDS, FIRST_READ, tick
from tickwork.times import DAY, HOUR, MINUTE, utc

def iso_of(ms):
    return str(ms)


JAN = utc("2026-01-15 00:00")
APRIL = utc("2026-04-01 00:05")


def statement(app, name="statement"):
    """A monthly statement that missed February and March: made at April's tick for April."""
    monthly = calendar("0 0 1 * *", name=name)
    app.tick([monthly], JAN, APRIL)
    return monthly


def backfilled(app, name="statement"):
    return [(r["at"], r["outcome"], r["backfill"]) for r in runs(app.db, name) if r["backfill"]]


def test_a_backfill_makes_each_occurrence_without_a_succeeded_run_oldest_first(app):
    monthly = statement(app)
    code, answer, _ = app.run("backfill", "statement", "--from", "2026-01-16T00:00Z", "--to", "2026-04-01T00:00Z",
                              "--who", "ana", now=APRIL + MINUTE)
    assert code == 0 and answer["changed"]
    assert [o["at"]["ms"] for o in answer["occurrences"]] == [utc("2026-02-01 00:00"), utc("2026-03-01 00:00")]
    app.tick([monthly], APRIL + MINUTE)
    assert monthly.action.at == [utc("2026-04-01 00:00"), utc("2026-02-01 00:00"), utc("2026-03-01 00:00")]
    assert backfilled(app) == [(utc("2026-02-01 00:00"), "succeeded", "ana"), (utc("2026-03-01 00:00"), "succeeded", "ana")]


def test_a_backfilled_run_is_called_for_its_occurrence_at_the_tick(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    app.tick([monthly], APRIL + MINUTE)
    assert monthly.action.made[-1] == {"now": APRIL + MINUTE, "at": utc("2026-02-01 00:00"), "n": None, "i": None}


def test_a_finished_backfill_is_done_and_a_tick_after_it_makes_nothing(app):
    monthly = statement(app)
    code, answer, _ = app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-03-15T00:00Z",
                              now=APRIL + MINUTE)
    app.tick([monthly], APRIL + MINUTE, APRIL + 2 * MINUTE)
    assert len(monthly.action.at) == 3
    [item] = app.run("backfills", now=APRIL + 3 * MINUTE)[1]["backfills"]
    assert (item["state"], item["made"]) == ("done", 2)


def test_a_slot_of_an_every_schedule_and_a_share_of_a_pulse_are_backfilled(app):
    census, sweep = every(15), pulse(HOUR, 4)
    app.tick([census, sweep], utc("2026-03-02 09:00"), utc("2026-03-02 10:00"))
    for name in ("census", "sweep"):
        app.run("backfill", name, "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T10:00Z", now=utc("2026-03-02 10:01"))
    app.tick([census, sweep], *(utc("2026-03-02 10:01") + k * MINUTE for k in range(3)))
    assert [r["at"] for r in runs(app.db, "census") if r["backfill"]] == [
        utc("2026-03-02 09:15"), utc("2026-03-02 09:30"), utc("2026-03-02 09:45")]
    assert [(r["at"], r["i"]) for r in runs(app.db, "sweep") if r["backfill"]] == [
        (utc("2026-03-02 09:15"), 1), (utc("2026-03-02 09:30"), 2), (utc("2026-03-02 09:45"), 3)]


def test_an_occurrence_with_a_succeeded_run_is_not_made_again(app):
    census = every(15)
    app.tick([census], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 09:30"))
    code, answer, _ = app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:30Z",
                              now=utc("2026-03-02 09:31"))
    assert answer["occurrences"] == [] and not answer["changed"]
    assert app.rows("SELECT * FROM tickwork_backfills") == []


def test_a_failed_occurrence_is_backfilled(app):
    def failing_once():
        failing_once.calls += 1
        if failing_once.calls == 1:
            raise RuntimeError("the ledger was locked")

    failing_once.calls = 0

    async def action():
        failing_once()

    census = Schedule("census", Every(15 * MINUTE), action)
    app.tick([census], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 09:30"))
    app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:30Z", now=utc("2026-03-02 09:31"))
    app.tick([census], utc("2026-03-02 09:31"))
    assert [(r["at"], r["outcome"]) for r in runs(app.db) if r["backfill"]] == [(utc("2026-03-02 09:15"), "succeeded")]


def test_a_dry_run_lists_what_it_would_make_and_changes_nothing(app):
    statement(app)
    code, answer, _ = app.run("backfill", "statement", "--from", "2026-01-16T00:00Z", "--to", "2026-04-01T00:00Z",
                              "--dry-run", now=APRIL + MINUTE)
    assert code == 0 and answer["dry_run"] and not answer["changed"]
    assert [o["at"]["utc"] for o in answer["occurrences"]] == ["2026-02-01T00:00:00.000Z", "2026-03-01T00:00:00.000Z"]
    assert app.rows("SELECT * FROM tickwork_backfills") == []
    _, text, _ = app.run("backfill", "statement", "--from", "2026-01-16T00:00Z", "--to", "2026-04-01T00:00Z",
                         "--dry-run", now=APRIL + MINUTE, json_=False)
    assert "2 occurrences" in text and "2026-02-01" in text


def test_a_cancelled_backfill_makes_no_more_occurrences(app):
    monthly = statement(app)
    _, answer, _ = app.run("backfill", "statement", "--from", "2026-01-16T00:00Z", "--to", "2026-04-01T00:00Z",
                           now=APRIL + MINUTE)
    code, cancelled, _ = app.run("backfill", "--cancel", answer["backfill"], "--who", "ana", now=APRIL + MINUTE)
    assert code == 0 and cancelled["backfill"]["state"] == "cancelled"
    app.tick([monthly], APRIL + MINUTE)
    assert backfilled(app) == []
    assert [r["verb"] for r in app.rows("SELECT verb FROM tickwork_operator_log ORDER BY at")] == [
        "backfill", "cancel_backfill"]


def test_cancelling_a_backfill_no_longer_pending_says_so(app):
    monthly = statement(app)
    _, answer, _ = app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z",
                           now=APRIL + MINUTE)
    app.tick([monthly], APRIL + MINUTE)
    code, _, err = app.run("backfill", "--cancel", answer["backfill"], now=APRIL + 2 * MINUTE)
    assert code == 1 and "backfill.not_pending" in err


def test_a_backfill_is_logged_with_who_asked_in_the_batch_that_asks_for_it(app):
    statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-03-01T00:00Z", "--who", "ana",
            now=APRIL + MINUTE)
    [entry] = app.rows("SELECT * FROM tickwork_operator_log")
    [asked] = app.rows("SELECT * FROM tickwork_backfills")
    assert (entry["who"], entry["verb"], entry["schedule"]) == ("ana", "backfill", "statement")
    assert asked["id"] in entry["detail"] and asked["who"] == "ana"


@pytest.mark.parametrize("start, end, says", [
    ("2026-03-01T00:00Z", "2026-02-01T00:00Z", "is after --to"),
    ("2026-03-01T00:00Z", "2026-05-01T00:00Z", "is after now"),
    ("May 5", "2026-02-01T00:00Z", "is no time"),
])
def test_a_bad_range_is_refused_with_its_code(app, start, end, says):
    statement(app)
    code, _, err = app.run("backfill", "statement", "--from", start, "--to", end, now=APRIL + MINUTE)
    assert code == 1 and "backfill.range_invalid" in err and says in err
    assert app.rows("SELECT * FROM tickwork_backfills") == []


def test_a_backfill_without_both_ends_of_its_range_is_refused(app):
    statement(app)
    code, _, err = app.run("backfill", "statement", "--from", "2026-03-01T00:00Z", now=APRIL + MINUTE)
    assert code == 1 and "backfill.range_invalid" in err


def test_a_removed_schedule_is_not_backfilled(app):
    statement(app)
    app.tick([], APRIL + MINUTE)
    code, _, err = app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-03-01T00:00Z",
                           now=APRIL + 2 * MINUTE)
    assert code == 1 and "backfill.schedule_removed" in err


def test_a_tick_makes_a_bounded_number_of_occurrences_one_schedule_after_another(app):
    census = every(1)
    app.tick([census], utc("2026-03-01 08:59"), utc("2026-03-02 10:00"))
    app.run("backfill", "census", "--from", "2026-03-01T09:00Z", "--to", "2026-03-02T09:58Z", now=utc("2026-03-02 10:00"))
    app.tick([census], utc("2026-03-02 10:00:30"))
    assert len(backfilled(app, "census")) == ROUNDS


def test_a_tick_makes_as_many_backfilled_runs_as_its_statement_cap_allows(app):
    census, cap = every(1), TICK_STATEMENTS
    app.tick([census], utc("2026-02-01 00:00"), utc("2026-03-02 00:00"))  # a month down: 43,200 owed
    app.run("backfill", "census", "--from", "2026-02-01T00:00Z", "--to", "2026-03-02T00:00Z", now=utc("2026-03-02 00:00"))
    before = app.db.statements_run
    app.tick([census], utc("2026-03-02 00:00:30"), max_statements=cap)
    spent, made = app.db.statements_run - before, len(backfilled(app, "census"))
    assert spent <= cap and cap - spent < READS + CLAIM_STATEMENTS + ENDS  # no room left for another round
    assert made >= 100 and made == (spent - FIRST_READ - READS * ceil(made / LOOKAHEAD)) // (CLAIM_STATEMENTS + ENDS)


def test_a_backfill_waits_while_its_schedule_holds_its_own_lease(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    app.rows("UPDATE tickwork_schedules SET lease_run = 'its-own', lease_until = ?1", APRIL + HOUR)
    app.rows("INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, outcome)"
             " VALUES ('its-own', 'statement', ?1, ?1, ?1, 'running')", APRIL)
    app.tick([monthly], APRIL + MINUTE)
    assert backfilled(app) == []


def test_two_racing_ticks_make_an_occurrence_once(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    other = Inputs()
    racing = calendar("0 0 1 * *", name="statement", action=other)

    async def race():
        async def meanwhile():
            await tick_at(app.db, [racing], APRIL + MINUTE)  # the other tick claims and runs it first

        first = Meanwhile(app.db, first_with(TAKE_LEASES), meanwhile)
        await tick_at(first, [monthly], APRIL + MINUTE)

    run(race())
    assert other.at == [utc("2026-02-01 00:00")]
    assert monthly.action.at == [utc("2026-04-01 00:00")]
    assert [(at, outcome) for at, outcome, _ in backfilled(app)] == [(utc("2026-02-01 00:00"), "succeeded")]
    assert len(app.rows("SELECT * FROM tickwork_backfilled")) == 1


def test_a_backfill_goes_on_past_more_made_occurrences_than_a_round_looks_at(app):
    census = every(1)
    minutes = [utc("2026-03-02 09:00") + k * MINUTE for k in range(LOOKAHEAD + 5)]
    app.tick([census], utc("2026-03-02 08:59"), *minutes[:2], *minutes[3:])  # 09:02 missed
    app.rows("UPDATE tickwork_runs SET outcome = 'failed' WHERE due_at = ?1", minutes[-1])
    app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", iso_of(minutes[-1]), now=minutes[-1] + 1)
    app.tick([census], minutes[-1] + 30_000, minutes[-1] + 40_000)
    assert [at for at, _, _ in backfilled(app, "census")] == [minutes[2], minutes[-1]]
    [asked] = app.rows("SELECT * FROM tickwork_backfills")
    assert asked["state"] == "done"


def test_what_a_backfilled_run_emits_is_delivered(app):
    async def monthly_statement():
        await order_placed.emit({"for": call.at})

    made = Schedule("statement", calendar("0 0 1 * *").timing, monthly_statement)
    queue = FakeQueue()
    app.tick([made], JAN, APRIL, outbox=outbox(app.db, queue))
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    app.tick([made], APRIL + MINUTE, outbox=outbox(app.db, queue))
    assert [m["body"]["for"] for m in queue.messages] == [utc("2026-04-01 00:00"), utc("2026-02-01 00:00")]


def test_a_nothing_due_tick_with_no_backfill_pending_stays_two_statements(app):
    statement(app)
    before = app.db.statements_run
    app.tick([calendar("0 0 1 * *", name="statement")], APRIL + MINUTE)
    assert app.db.statements_run - before == 2


def test_a_backfill_is_made_only_while_the_ticks_statement_cap_lasts(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-03-01T00:00Z", now=APRIL + MINUTE)
    one_round = FIRST_READ + READS + CLAIM_STATEMENTS + ENDS
    app.tick([monthly], APRIL + MINUTE, max_statements=one_round - 1)
    assert backfilled(app) == []
    app.tick([monthly], APRIL + 2 * MINUTE, max_statements=one_round)
    assert [at for at, _, _ in backfilled(app)] == [utc("2026-02-01 00:00")]


def test_a_backfill_leaves_the_statements_kept_for_the_invocations_later_ticks(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-03-01T00:00Z", now=APRIL + MINUTE)
    one_round = FIRST_READ + READS + CLAIM_STATEMENTS + ENDS
    app.tick([monthly], APRIL + MINUTE, max_statements=one_round + 5, for_later=6)
    assert backfilled(app) == []
    app.tick([monthly], APRIL + 2 * MINUTE, max_statements=one_round + 5, for_later=5)
    assert [at for at, _, _ in backfilled(app)] == [utc("2026-02-01 00:00")]

def test_an_item_handed_over_is_backfilled_by_its_id_with_its_input(app):
    from test_schedules_handed_over import MADE, send_statement

    from tickwork.per_item import Items

    MADE.clear()
    id = run(Items(app.db, lambda: utc("2026-01-04 12:00")).calendar(
        send_statement, {"customer": "c1"}, "0 9 * * 1", zone="Europe/Berlin"))
    app.tick([], utc("2026-02-01 10:00"))
    app.run("backfill", id, "--from", "2026-01-01T00:00Z", "--to", "2026-01-25T00:00Z", "--who", "ana",
            now=utc("2026-02-01 10:01"))
    app.tick([], utc("2026-02-01 10:01"))
    assert [(m["input"], m["at"]) for m in MADE] == [({"customer": "c1"}, utc("2026-01-26 08:00"))] + [
        ({"customer": "c1"}, utc(day)) for day in ("2026-01-05 08:00", "2026-01-12 08:00", "2026-01-19 08:00")]
    MADE.clear()


def test_housekeeping_deletes_a_backfill_ended_past_the_retention_with_the_occurrences_it_made(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    app.run("backfill", "statement", "--from", "2026-03-01T00:00Z", "--to", "2026-03-01T00:00Z", now=APRIL + MINUTE)
    app.rows("UPDATE tickwork_schedules SET paused = 1")
    app.tick([monthly], APRIL + MINUTE)
    app.rows("UPDATE tickwork_schedules SET paused = 0")
    app.run("backfill", "--cancel", app.rows("SELECT id FROM tickwork_backfills WHERE from_at = ?1",
                                             utc("2026-03-01 00:00"))[0]["id"], now=APRIL + 2 * MINUTE)
    app.tick([monthly], APRIL + 2 * MINUTE)
    assert len(app.rows("SELECT * FROM tickwork_backfilled")) == 1
    app.tick([monthly], APRIL + 31 * DAY)
    assert app.rows("SELECT * FROM tickwork_backfills") == []
    assert app.rows("SELECT * FROM tickwork_backfilled") == []


def test_an_occurrence_whose_worker_was_killed_is_recorded_lease_expired_and_not_made_again(app):
    from faults import Killed, KilledAfter, first_with

    from tickwork.backfill_store import RECORD_STARTS

    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    with pytest.raises(Killed):
        run(tick_at(KilledAfter(app.db, first_with(RECORD_STARTS)), [monthly], APRIL + MINUTE))
    app.tick([monthly], APRIL + HOUR)
    assert [(r["at"], r["outcome"], r["code"]) for r in runs(app.db, "statement") if r["backfill"]] == [
        (utc("2026-02-01 00:00"), "failed", "lease_expired")]
    app.tick([monthly], APRIL + 2 * HOUR)
    assert len([r for r in runs(app.db, "statement") if r["backfill"]]) == 1


def test_a_backfilled_runs_record_has_an_id_beginning_with_the_tick_that_made_it(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    app.tick([monthly], APRIL + MINUTE)
    [made] = [r for r in runs(app.db, "statement") if r["backfill"]]
    assert made["id"].startswith(f"z{APRIL + MINUTE:012x}")


def test_a_backfilled_run_is_told_as_asked_for_not_as_late_by_the_months_since_its_occurrence(app):
    from tickwork.words import what_happened

    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", "--who", "ana",
            now=APRIL + MINUTE)
    app.tick([monthly], APRIL + MINUTE)
    [made] = [r for r in runs(app.db, "statement") if r["backfill"]]
    text = what_happened(made, [])
    assert "a backfill asked for by ana" in text and "late" not in text


def test_a_backfilled_run_handing_over_in_bulk_leaves_the_statements_its_end_needs_under_the_cap(app, monkeypatch):
    handed = []

    async def enrol():
        handed.append(await items.every_many(send_statement, customers(200), "1d"))

    enrolling = Schedule("statement", calendar("0 0 1 * *").timing, enrol)
    app.tick([enrolling], JAN, APRIL)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    small_statements(monkeypatch)
    hand_over = 6  # statements the cap leaves the run's hand-over: too few for 200 items
    before, cap = app.db.statements_run, FIRST_READ + READS + CLAIM_STATEMENTS + ENDS + hand_over
    app.tick([enrolling], APRIL + MINUTE, max_statements=cap)
    spent = app.db.statements_run - before
    assert [(at, outcome) for at, outcome, _ in backfilled(app)] == [(utc("2026-02-01 00:00"), "succeeded")]
    assert 0 < len(handed[-1].ids) < 200 and spent <= cap


@pytest.mark.parametrize("timing", [Every(15 * MINUTE), Pulse(HOUR, 4)], ids=["every", "pulse"])
def test_the_slots_a_failed_run_covered_before_the_one_its_retry_makes_again_are_backfilled(app, timing):
    from test_retries import Failing

    from tickwork.model import Retry

    owed = [utc("2026-03-02 09:15") + k * 15 * MINUTE for k in range(5)]  # 10:30 is the retry's
    census = Schedule("census", timing, Failing(1), retry=Retry(1, MINUTE))
    app.tick([census], utc("2026-03-02 09:00"), utc("2026-03-02 10:30"))  # down from 09:15, its run fails
    asked = ("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T10:30Z")
    _, dry, _ = app.run(*asked, "--dry-run", now=utc("2026-03-02 10:30:30"))
    assert [o["at"]["ms"] for o in dry["occurrences"]] == owed
    _, answer, _ = app.run(*asked, now=utc("2026-03-02 10:30:30"))
    assert answer["changed"] and len(answer["occurrences"]) == 5
    app.tick([census], utc("2026-03-02 10:31"))
    assert [at for at, _, _ in backfilled(app, "census")] == owed


REMINDED: list = []


async def remind_failing_first():
    REMINDED.append(call.at)
    if len(REMINDED) == 1:
        raise RuntimeError("the mail server refused the reminder")


def test_a_one_off_item_whose_call_failed_is_made_again_by_a_backfill_once(app):
    from tickwork.per_item import Items

    REMINDED.clear()
    nine = utc("2026-03-02 09:00")
    id = run(Items(app.db, lambda: nine).once(remind_failing_first, {"todo": 1}, nine + MINUTE))
    app.tick([], nine + MINUTE)  # its one call fails, and the item is done
    asked = ("backfill", id, "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:05Z")
    code, answer, err = app.run(*asked, now=nine + 5 * MINUTE)
    assert code == 0 and answer["changed"], err
    assert [o["at"]["ms"] for o in answer["occurrences"]] == [nine + MINUTE]
    app.tick([], nine + 6 * MINUTE, nine + 7 * MINUTE)
    assert REMINDED == [nine + MINUTE, nine + MINUTE]
    assert [(r["at"], r["outcome"]) for r in runs(app.db, id) if r["backfill"]] == [(nine + MINUTE, "succeeded")]
    code, again, _ = app.run(*asked, now=nine + 8 * MINUTE)
    assert code == 0 and again["occurrences"] == [] and not again["changed"]


def test_a_one_off_item_cancelled_is_not_backfilled(app):
    from tickwork.per_item import Items

    nine = utc("2026-03-02 09:00")
    handed = Items(app.db, lambda: nine)
    id = run(handed.once(remind_failing_first, {"todo": 1}, nine + MINUTE))
    run(handed.cancel(id))
    code, _, err = app.run("backfill", id, "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:05Z",
                           now=nine + 5 * MINUTE)
    assert code == 1 and "backfill.schedule_removed" in err


def test_a_backfill_gives_way_to_its_schedules_own_run_coming_due_within_ten_seconds(app):
    census = every(1)
    app.tick([census], utc("2026-03-02 08:59"), utc("2026-03-02 10:00"))
    app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:58Z", now=utc("2026-03-02 10:00"))
    app.tick([census], utc("2026-03-02 10:00:50"))  # 10:01 is its own
    assert backfilled(app, "census") == []
    app.tick([census], utc("2026-03-02 10:01"))
    own = [r["outcome"] for r in runs(app.db, "census") if r["due_at"] == utc("2026-03-02 10:01") and not r["backfill"]]
    assert own == ["succeeded"] and len(backfilled(app, "census")) == 59


def test_a_one_off_item_handed_over_for_the_moment_it_was_handed_over_is_backfilled_too(app):
    from tickwork.per_item import Items

    REMINDED.clear()
    nine = utc("2026-03-02 09:00")
    id = run(Items(app.db, lambda: nine).once(remind_failing_first, {"todo": 1}, nine))
    app.tick([], nine)  # its one call fails
    _, answer, err = app.run("backfill", id, "--from", "2026-03-02T08:55Z", "--to", "2026-03-02T09:05Z",
                             "--dry-run", now=nine + 5 * MINUTE)
    assert [o["at"]["ms"] for o in answer["occurrences"]] == [nine], err


class Overlapping:
    """An action recording each call's `at`, and the most calls under way at once."""

    def __init__(self):
        self.at: list[int] = []
        self.under_way = self.most = 0

    async def __call__(self):
        self.under_way += 1
        self.most = max(self.most, self.under_way)
        self.at.append(call.at)
        for _ in range(3):
            await asyncio.sleep(0)  # the other tickers go on meanwhile
        self.under_way -= 1


class Slowed(Wrapped):
    """Wraps a database: each call first lets the other tickers go on for a while, from none to
    a round's worth of their calls (drawn from `seed`), so what a ticker read is often stale by
    the time it claims."""

    def __init__(self, inner, seed: int):
        super().__init__(inner)
        self.draw = random.Random(seed)

    async def _call(self, call, send):
        for _ in range(self.draw.randrange(12)):
            await asyncio.sleep(0)
        return await send()


class KilledAfterClaims(Slowed):
    """... and the worker dies right after its `claims`-th backfill claim landed."""

    def __init__(self, inner, seed: int, claims: int):
        super().__init__(inner, seed)
        self.left, self.dead = claims, False

    async def _call(self, call, send):
        if self.dead:
            raise Killed("the worker was killed")
        result = await super()._call(call, send)
        self.left -= RECORD_STARTS in call.sqls
        self.dead = self.left == 0
        return result


def test_racing_tickers_making_many_backfilled_runs_a_tick_with_one_killed_make_each_occurrence_once(app):
    from tickwork.adapters.sqlite import SQLiteDatabase

    action = Overlapping()
    census = every(1, action=action)
    app.tick([census], utc("2026-03-02 08:59"), utc("2026-03-02 11:00"))  # 09:00 to 10:59 owed
    app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T10:59Z", now=utc("2026-03-02 11:00"))
    dbs = [app.db] + [SQLiteDatabase(app.path) for _ in range(5)]

    async def tickers(now, killed):
        async def ticker(k, db):  # each a few rounds at most, some starting as others are rounds in
            for _ in range(k * 5):
                await asyncio.sleep(0)
            return await tick_at(db, [census], now, max_statements=FIRST_READ + 2 * READS + 3 * (CLAIM_STATEMENTS + ENDS) + ENDS)

        seed = now // MINUTE * len(dbs)
        first = KilledAfterClaims(dbs[0], seed, 3) if killed else Slowed(dbs[0], seed)
        wrapped = [first] + [Slowed(d, seed + k) for k, d in enumerate(dbs[1:], 1)]
        return await asyncio.gather(*(ticker(k, d) for k, d in enumerate(wrapped)), return_exceptions=True)

    for k in range(90):  # past the killed ticker's lease, many ticks racing
        run(tickers(utc("2026-03-02 11:00:30") + k * MINUTE, killed=k == 0))
    owed = [utc("2026-03-02 09:00") + k * MINUTE for k in range(120)]
    assert sorted(at for at in action.at if at is not None) == owed  # each called once (its own runs name none)
    made = sorted((r["at"], r["outcome"]) for r in runs(app.db, "census") if r["backfill"])
    assert [at for at, _ in made] == owed
    assert [outcome for _, outcome in made].count("failed") == 1  # the killed ticker's third, lease_expired
    assert len(app.rows("SELECT * FROM tickwork_backfilled")) == 120 and action.most == 1
    assert app.rows("SELECT state FROM tickwork_backfills") == [{"state": "done"}]


def test_backfills_waiting_on_paused_schedules_do_not_hold_up_younger_ones_that_can_be_made(app):
    from tickwork.backfill import BACKFILLS_A_ROUND

    paused = [every(1, name=f"paused{k}") for k in range(BACKFILLS_A_ROUND)]
    census = every(1)
    app.tick([*paused, census], utc("2026-03-02 08:59"), utc("2026-03-02 10:00"))
    for k, schedule in enumerate(paused):
        app.run("pause", schedule.name, now=utc("2026-03-02 10:00"))
        app.run("backfill", schedule.name, "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:58Z",
                now=utc("2026-03-02 10:00") + k)  # asked first, each
    app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:58Z", now=utc("2026-03-02 10:00:20"))
    app.tick([*paused, census], utc("2026-03-02 10:00:30"))
    assert len(backfilled(app, "census")) == 59


def test_a_tick_started_late_gives_way_by_the_wall_clock_not_by_its_scheduled_time(app):
    census = every(1)
    app.tick([census], utc("2026-03-02 08:59"), utc("2026-03-02 10:00"))
    app.run("backfill", "census", "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T09:58Z", now=utc("2026-03-02 10:00"))
    app.tick([census], utc("2026-03-02 10:00:30"), started_at=utc("2026-03-02 10:00:55"))  # invoked 25 s late
    assert backfilled(app, "census") == []


def test_a_tick_reading_the_backfills_again_near_its_cap_stays_within_it(tmp_path, capsys):
    from tickwork.schedule_store import ROWS_PER_STATEMENT

    censuses = [every(1, name=f"census{k}") for k in range(3)]
    read = 1 + ceil(len(censuses) * LOOKAHEAD / ROWS_PER_STATEMENT)  # the made check takes several statements
    around = FIRST_READ + read + LOOKAHEAD * (CLAIM_STATEMENTS + ENDS)  # where the second read comes
    for cap in range(around, around + CLAIM_STATEMENTS + ENDS + read):
        (tmp_path / str(cap)).mkdir()
        app = OperatorHarness(tmp_path / str(cap), capsys)
        app.tick(censuses, utc("2026-03-02 08:59"), utc("2026-03-02 14:00"))
        for census in censuses:
            app.run("backfill", census.name, "--from", "2026-03-02T09:00Z", "--to", "2026-03-02T13:58Z",
                    now=utc("2026-03-02 14:00"))
        before = app.db.statements_run
        app.tick(censuses, utc("2026-03-02 14:00:30"), max_statements=cap)
        assert app.db.statements_run - before <= cap, cap
        app.db.close()


def tick_statements(app, schedules, moment):
    """The statements the tick at `moment` makes."""
    before = app.db.statements_run
    app.tick(schedules, moment)
    return app.db.statements_run - before


def weekly_item_backfilled(app):
    """A weekly item handed over, and a backfill of it asked for: its id."""
    from test_schedules_handed_over import send_statement

    from tickwork.per_item import Items

    id = run(Items(app.db, lambda: utc("2026-01-04 12:00")).calendar(
        send_statement, {"customer": "c1"}, "0 9 * * 1", zone="Europe/Berlin"))
    app.tick([], utc("2026-02-01 10:00"))
    app.run("backfill", id, "--from", "2026-01-01T00:00Z", "--to", "2026-01-25T00:00Z", now=utc("2026-02-01 10:01"))
    return id


def test_a_backfill_of_an_item_cancelled_after_it_was_asked_ends_as_its_schedule_gone(app):
    from tickwork.per_item import Items

    id = weekly_item_backfilled(app)
    run(Items(app.db, lambda: utc("2026-02-01 10:01")).cancel(id))
    app.tick([], utc("2026-02-01 10:02"))  # the backfill step finds its item ended
    assert tick_statements(app, [], utc("2026-02-01 10:03")) == FIRST_READ
    [item] = app.run("backfills", now=utc("2026-02-01 10:04"))[1]["backfills"]
    assert (item["state"], item["made"], item["ended"]["ms"]) == ("ended", 0, utc("2026-02-01 10:02"))
    _, said, _ = app.run("backfills", now=utc("2026-02-01 10:04"), json_=False)
    assert "ended: its schedule is gone" in said


def test_a_backfill_whose_schedule_housekeeping_deleted_ends_as_its_schedule_gone(app):
    from tickwork.per_item import Items

    id = weekly_item_backfilled(app)
    run(Items(app.db, lambda: utc("2026-02-01 10:01")).cancel(id))
    later = utc("2026-03-05 10:00")
    app.tick([], later)  # housekeeping deletes the item cancelled past the retention
    assert app.rows("SELECT name FROM tickwork_schedules WHERE name = ?1", id) == []
    app.rows("UPDATE tickwork_backfills SET state = 'pending', ended_at = NULL")  # as a tickwork before left it
    app.tick([], later + MINUTE)  # the backfill step finds its schedule gone
    assert tick_statements(app, [], later + 2 * MINUTE) == FIRST_READ
    [item] = app.run("backfills", now=later + 3 * MINUTE)[1]["backfills"]
    assert (item["state"], item["ended"]["ms"]) == ("ended", later + MINUTE)


def test_a_backfill_waiting_on_a_paused_or_removed_schedule_costs_a_nothing_due_tick_no_statement(app):
    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    app.run("pause", "statement", now=APRIL + MINUTE)
    assert tick_statements(app, [monthly], APRIL + 2 * MINUTE) == FIRST_READ
    app.run("resume", "statement", now=APRIL + 3 * MINUTE)
    app.tick([], APRIL + 3 * MINUTE)  # a deploy without it: it waits until declared again
    assert tick_statements(app, [], APRIL + 4 * MINUTE) == FIRST_READ
    assert app.rows("SELECT state FROM tickwork_backfills") == [{"state": "pending"}]
    app.tick([monthly], APRIL + 5 * MINUTE, APRIL + 6 * MINUTE)  # declared again, made from the tick after
    assert [at for at, _, _ in backfilled(app)] == [utc("2026-02-01 00:00")]
    assert app.rows("SELECT state FROM tickwork_backfills") == [{"state": "done"}]


def test_a_backfill_of_an_item_handed_over_again_between_the_steps_read_and_its_end_is_kept(app):
    from test_schedules_handed_over import send_statement

    from tickwork.backfill_store import END_GONE
    from tickwork.per_item import Items

    id = weekly_item_backfilled(app)
    handed = Items(app.db, lambda: utc("2026-02-01 10:01"))
    run(handed.cancel(id))

    async def meanwhile():  # handed over again, under the same id
        await handed.calendar(send_statement, {"customer": "c1"}, "0 9 * * 1", zone="Europe/Berlin")

    run(tick_at(Meanwhile(app.db, first_with(END_GONE), meanwhile), [], utc("2026-02-01 10:02")))
    assert app.rows("SELECT state FROM tickwork_backfills") == [{"state": "pending"}]
    app.tick([], utc("2026-02-01 10:03"))  # it owes nothing from before it was handed over again
    assert app.rows("SELECT state, made FROM tickwork_backfills") == [{"state": "done", "made": 0}]


def test_a_refused_backfill_is_the_one_error_type_with_its_code_and_reads_code_then_why():
    refused = Refused("backfill.range_invalid", "the range ends before it starts")
    assert isinstance(refused, ScheduleError) and isinstance(refused, ValueError)
    assert (refused.code, refused.message, refused.mend) == (
        "backfill.range_invalid", "the range ends before it starts", "")
    assert str(refused) == "backfill.range_invalid: the range ends before it starts"
