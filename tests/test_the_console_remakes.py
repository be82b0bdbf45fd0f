"""A failed due time made again from its run's page (issue 26): of any schedule, a failed one-off
item included; the next tick runs (schedule, due time) once more as the operator's run, recorded
with who asked, with one operator-log row, exactly once however ticks race. The change answers
303 See Other to the page it came from, carrying what it said."""

from urllib.parse import unquote

import pytest
from console_fixtures import NINE, ORIGIN, PREFIX, RETRYING, ask, csrf_of, logged, retrying_store, said_of
from faults import Meanwhile, first_with
from helpers import every, open_store, run, tick_at, ticks

from tickwork import Schedule, call
from tickwork.grid import Every
from tickwork.per_item import Items
from tickwork.operating.remake import why_not_remade
from tickwork.store import remakes
from tickwork.store.backfills import TAKE_BACKFILL_LEASES
from tickwork.times import MINUTE, utc
from test_the_console_reads_what_it_shows import scans

CALLED: list = []


async def failing_once():
    CALLED.append(call.at)
    if len(CALLED) == 1:
        raise RuntimeError("the ledger was locked")


async def always_failing():
    CALLED.append(call.at)
    raise RuntimeError("the ledger is gone")


@pytest.fixture(autouse=True)
def called():
    CALLED.clear()


def failed_store(action=failing_once):
    """`ledger`, every hour, whose 10:00 run failed; the next tick is at 10:05."""
    db = open_store()
    ticks(db, [ledger(action)], NINE, TEN)
    return db


def ledger(action=failing_once):
    return Schedule("ledger", Every(60 * MINUTE), action)


def records(db, name="ledger"):
    return run(db.all("SELECT * FROM tickwork_runs WHERE schedule = ?1 ORDER BY tick_at, id", (name,)))


def remake(db, id, now):
    page = ask(db, "GET", f"{PREFIX}/run?id={id}", now=now).body
    assert "Make this due time again" in page
    return ask(db, "POST", f"{PREFIX}/run/remake", now=now, headers={"origin": ORIGIN},
               form={"id": id, "csrf": csrf_of(page), "back": f"{PREFIX}/run?id={id}"})


TEN, LATER = utc("2026-03-02 10:00"), utc("2026-03-02 10:05")


def test_a_failed_due_time_is_made_again_once_by_the_next_tick_as_the_operator_s_run():
    db = failed_store()
    [failed] = records(db)
    answer = remake(db, failed["id"], LATER)
    assert answer.status == 303
    assert answer.headers["location"].startswith(f"{PREFIX}/run?id={failed['id']}&said=")
    assert "ledger due 2026-03-02 10:00 UTC: made again by the next tick" in said_of(answer)
    assert logged(db) == [("local", "remake", "ledger")]
    ticks(db, [ledger()], LATER, LATER + MINUTE)
    assert CALLED == [None, TEN]  # the 10:00 call, and once more for its occurrence, as a backfill calls it
    failed, remade = records(db)
    assert (remade["due_at"], remade["outcome"], remade["backfill"]) == (TEN, "succeeded", "local")
    page = ask(db, "GET", f"{PREFIX}/run?id={remade['id']}", now=LATER + 2 * MINUTE).body
    assert "making the due time again (remake of" in page and f'href="{PREFIX}/run?id={failed["id"]}"' in page
    assert "remake by local" in page  # in its due time's attempts


def test_the_page_it_goes_back_to_shows_what_was_said():
    db = failed_store()
    [failed] = records(db)
    location = remake(db, failed["id"], LATER).headers["location"]
    page = ask(db, "GET", location, now=LATER).body
    assert '<p class="said">ledger due 2026-03-02 10:00 UTC: made again by the next tick' in page
    assert "not made again: a remake of that due time already waits for the next tick." in page


def test_a_remake_asked_twice_before_a_tick_is_asked_once():
    db = failed_store()
    [failed] = records(db)
    page = ask(db, "GET", f"{PREFIX}/run?id={failed['id']}", now=LATER).body
    form = {"id": failed["id"], "csrf": csrf_of(page)}
    first, again = (ask(db, "POST", f"{PREFIX}/run/remake", now=LATER, headers={"origin": ORIGIN}, form=form)
                    for _ in range(2))
    assert first.status == 303
    assert again.status == 409 and "remake.not_remakable" in again.body and "already waits" in again.body
    assert logged(db) == [("local", "remake", "ledger")]


def test_two_requests_racing_past_the_checks_ask_once_the_batch_sees_the_first():
    db = failed_store()
    [failed] = records(db)
    store = remakes.RemakeStore(db)
    first, again = (run(store.remake(failed["id"], who, LATER)) for who in ("ana", "bo"))
    assert first.backfill is not None and again.backfill is None
    assert why_not_remade(again.run) == "a remake of that due time already waits for the next tick"
    assert logged(db) == [("ana", "remake", "ledger")]


def test_racing_ticks_make_the_remade_due_time_once():
    db = failed_store()
    [failed] = records(db)
    remake(db, failed["id"], LATER)

    async def race():
        async def meanwhile():
            await tick_at(db, [ledger()], LATER)  # the other tick claims and runs it first

        await tick_at(Meanwhile(db, first_with(TAKE_BACKFILL_LEASES), meanwhile), [ledger()], LATER)
        await tick_at(db, [ledger()], LATER + MINUTE)

    run(race())
    assert CALLED == [None, TEN]
    assert [r["outcome"] for r in records(db)] == ["failed", "succeeded"]


def test_a_due_time_made_again_that_fails_again_can_be_made_again():
    db = failed_store(always_failing)
    [failed] = records(db)
    remake(db, failed["id"], LATER)
    ticks(db, [ledger(always_failing)], LATER)
    _, again = records(db)
    assert again["outcome"] == "failed" and again["backfill"] == "local"
    assert remake(db, again["id"], LATER + MINUTE).status == 303
    ticks(db, [ledger(always_failing)], LATER + 2 * MINUTE)
    assert len(CALLED) == 3 and [r["backfill"] for r in records(db)] == [None, "local", "local"]


def test_a_failed_one_off_item_which_ended_done_is_made_again():
    db = open_store()
    id = run(Items(db, lambda: NINE).once(failing_once, {"todo": 1}, NINE + MINUTE))
    ticks(db, [], NINE + MINUTE)  # its one call fails, and the item is done
    [failed] = records(db, id)
    assert failed["outcome"] == "failed"
    assert remake(db, failed["id"], NINE + 5 * MINUTE).status == 303
    ticks(db, [], NINE + 6 * MINUTE)
    assert CALLED == [NINE + MINUTE, NINE + MINUTE]
    assert [r["outcome"] for r in records(db, id)] == ["failed", "succeeded"]


def test_a_due_time_that_succeeded_since_is_not_made_again():
    db = failed_store()
    [failed] = records(db)
    remake(db, failed["id"], LATER)
    ticks(db, [ledger()], LATER)
    page = ask(db, "GET", f"{PREFIX}/run?id={failed['id']}", now=LATER + MINUTE).body
    assert "Make this due time again" not in page and "not made again: a run of that due time succeeded since" in page
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=ledger", now=LATER + MINUTE).body)
    answer = ask(db, "POST", f"{PREFIX}/run/remake", now=LATER + MINUTE, headers={"origin": ORIGIN},
                 form={"id": failed["id"], "csrf": token})
    assert answer.status == 409 and "a run of that due time succeeded since" in answer.body
    assert [verb for _, verb, _ in logged(db)] == ["remake"]


def test_a_failed_attempt_whose_retry_is_still_to_come_is_not_made_again():
    """flaky's 10:00 and its 10:01 retry failed, its third attempt waits for 10:03: the retry
    makes that due time, and a remake beside it would run it twice."""
    db = retrying_store()
    first, retried = records(db, "flaky")
    at = TEN + 2 * MINUTE
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=flaky", now=at, app=RETRYING).body)
    for failed in (first, retried):
        page = ask(db, "GET", f"{PREFIX}/run?id={failed['id']}", now=at, app=RETRYING).body
        assert "Make this due time again" not in page and "not made again: a retry of that due time is pending" in page
        answer = ask(db, "POST", f"{PREFIX}/run/remake", now=at, headers={"origin": ORIGIN}, app=RETRYING,
                     form={"id": failed["id"], "csrf": token})
        assert answer.status == 409 and "a retry of that due time is pending" in answer.body
    assert logged(db) == [] and not run(db.all("SELECT * FROM tickwork_backfills"))


def test_a_run_that_did_not_fail_has_no_remake_and_no_such_run_is_a_404():
    db = open_store()
    ticks(db, [every(1)], NINE, NINE + MINUTE)
    [succeeded] = records(db, "census")
    page = ask(db, "GET", f"{PREFIX}/run?id={succeeded['id']}", now=NINE + 2 * MINUTE).body
    assert "Make this due time again" not in page
    page = ask(db, "GET", f"{PREFIX}/schedule?name=census", now=NINE + 2 * MINUTE).body
    answer = ask(db, "POST", f"{PREFIX}/run/remake", now=NINE + 2 * MINUTE, headers={"origin": ORIGIN},
                 form={"id": succeeded["id"], "csrf": csrf_of(page)})
    assert answer.status == 409 and "only a failed one" in answer.body
    answer = ask(db, "POST", f"{PREFIX}/run/remake", now=NINE + 2 * MINUTE, headers={"origin": ORIGIN},
                 form={"id": "z-nobody", "csrf": csrf_of(page)})
    assert answer.status == 404 and "remake.unknown" in unquote(answer.body) and logged(db) == []


def test_a_remake_without_the_form_token_is_403_and_asks_for_nothing():
    db = failed_store()
    [failed] = records(db)
    answer = ask(db, "POST", f"{PREFIX}/run/remake", now=LATER, headers={"origin": ORIGIN}, form={"id": failed["id"]})
    assert answer.status == 403 and logged(db) == []
    assert not run(db.all("SELECT * FROM tickwork_backfills"))


def test_the_remake_s_statements_read_through_indexes():
    db = open_store()
    for sql in (remakes.LOG_REMAKE, remakes.REQUEST_REMAKE, remakes.FORGET_MADE, remakes.SELECT_REMADE):
        assert not scans(db, sql), sql


# -- the command's verb, `tickwork remake RUN` ---------------------------------------------------

def test_tickwork_remake_asks_for_the_same_remake_as_the_run_page_and_logs_who(app):
    app.tick([ledger()], NINE, TEN)
    [failed] = records(app.db)
    code, answer, err = app.run("remake", failed["id"], "--who", "ana", now=LATER)
    assert code == 0 and answer["changed"] and answer["schedule"] == "ledger", err
    assert answer["due"]["ms"] == TEN
    app.tick([ledger()], LATER)
    assert [(r["outcome"], r["backfill"]) for r in records(app.db)] == [("failed", None), ("succeeded", "ana")]
    assert logged(app.db) == [("ana", "remake", "ledger")]


def test_tickwork_remake_of_no_such_run_or_one_that_succeeded_says_its_code(app):
    app.tick([ledger()], NINE, TEN, LATER)
    code, _, err = app.run("remake", "z-nobody", now=LATER)
    assert code == 1 and "remake.unknown: there is no run z-nobody" in err
    app.tick([every(1)], LATER, LATER + MINUTE)
    [succeeded] = records(app.db, "census")
    code, _, err = app.run("remake", succeeded["id"], now=LATER + 2 * MINUTE)
    assert code == 1 and "remake.not_remakable" in err and "only a failed one" in err
