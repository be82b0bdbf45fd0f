"""The console's page per run (issue 26): the run's record whole, with the end of its traceback;
every attempt of its due time; its trace; what it emitted with each delivery's state; the
occurrences it covered; who or what asked for it; linked from every table that shows a run, and
read through indexes."""

import re
from html import escape

import pytest
from console_fixtures import (
    APRIL, BACKFILLING, NINE, PREFIX, RETRYING, TEN, ask, filled_store, monthly_store, retrying_store,
)
from helpers import every, open_store, run, ticks
from test_the_console_pages import shown
from test_the_console_reads_what_it_shows import scans

from tickwork import Schedule
from tickwork.console import run_store
from tickwork.grid import Every
from tickwork.store.ends import STACK_KEPT
from tickwork.times import MINUTE

LONG = "the upstream answered: " + "x" * 4500 + " and then gave up"  # more than the traceback keeps


async def long_failure():
    def deep(n):
        if n == 0:
            raise RuntimeError(LONG)
        deep(n - 1)

    deep(3)


@pytest.fixture(scope="module")
def db():
    return filled_store()


def runs_of(db, name):
    return run(db.all("SELECT * FROM tickwork_runs WHERE schedule = ?1 ORDER BY tick_at, id", (name,)))


def page_of(db, id, **options):
    return ask(db, "GET", f"{PREFIX}/run?id={id}", **options)


def test_a_failed_run_s_page_shows_its_detail_whole_and_the_end_of_its_traceback():
    db = open_store()
    ticks(db, [Schedule("long", Every(MINUTE), long_failure)], NINE, NINE + MINUTE)
    [failed] = runs_of(db, "long")
    body = page_of(db, failed["id"], now=NINE + 2 * MINUTE).body
    assert LONG in body  # not clipped at 160 characters as the tables clip it: the detail whole
    assert len(failed["stack"]) <= STACK_KEPT
    assert "in deep\n" in failed["stack"] and "raise RuntimeError(LONG)" in failed["stack"]  # where it raised
    assert "RuntimeError: the upstream answered: xxx" in failed["stack"]  # the error's line, clipped
    assert "Traceback (its last lines)" in body and escape(failed["stack"]) in body  # escaped, whole


def test_the_page_says_the_schedule_the_outcome_the_due_time_the_trace_and_who_asked(db):
    failed = runs_of(db, "mailer")[0]
    page = shown(page_of(db, failed["id"]))
    assert "Run of mailer" in page
    assert "outcome failed (internal_fault) (raised)" in page
    assert "due 2026-03-02 09:01 UTC" in page
    assert f"trace {failed['trace']}" in page
    assert "asked for by its due time" in page
    assert "RuntimeError: the <mail> service is down" in page  # escaped in the markup, read as written
    assert f'href="{PREFIX}/schedule?name=mailer"' in page_of(db, failed["id"]).body


def test_the_page_lists_every_attempt_of_its_due_time_each_linked_and_says_a_retry_is_one():
    db = retrying_store()
    first, retry = runs_of(db, "flaky")
    page = page_of(db, retry["id"], now=TEN + 2 * MINUTE, app=RETRYING)
    assert "asked for by a retry of its due time (attempt 2)" in shown(page)
    assert f'href="{PREFIX}/run?id={first["id"]}"' in page.body  # the other attempt, linked
    assert re.search(r"RUN STARTED OUTCOME ASKED FOR .* its due time .* attempt 2", shown(page))


def test_what_a_run_emitted_is_shown_with_each_delivery_s_state(db):
    [placed] = [r for r in runs_of(db, "place") if r["events"]][:1]
    [delivery] = run(db.all("SELECT d.* FROM tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event "
                            "WHERE e.run = ?1", (placed["id"],)))
    page = shown(page_of(db, placed["id"]))
    assert f"order_placed {{\"order\":7}} {delivery['id']} EVENTS {delivery['state']} 1 ConnectionError" in page


def test_a_run_covering_missed_occurrences_says_which_and_how_to_backfill_them():
    db = monthly_store()
    [april] = runs_of(db, "statement")
    page = shown(page_of(db, april["id"], now=APRIL + MINUTE, app=BACKFILLING))
    assert "covered 3 occurrences missed, 2026-02-01 00:00 UTC to 2026-04-01 00:00 UTC" in page
    assert "tickwork backfill statement --from 2026-02-01T00:00:00.000Z" in page


def test_a_run_by_hand_says_who_asked_for_it():
    db = open_store()
    census = every(1)
    ticks(db, [census], NINE)
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada' WHERE name = 'census'",
               (NINE + 10_000,)))
    ticks(db, [census], NINE + 20_000)
    by_hand = runs_of(db, "census")[-1]
    assert "asked for by ada, by hand" in shown(page_of(db, by_hand["id"], now=NINE + MINUTE))


def test_no_such_run_is_a_404_page_that_says_so(db):
    answer = page_of(db, "z-nobody")
    assert answer.status == 404 and "There is no run z-nobody" in answer.body


def test_every_table_that_shows_a_run_links_to_its_page(db):
    failed = runs_of(db, "mailer")[-1]
    emitting = [r for r in runs_of(db, "place") if r["events"]][0]
    link = f'href="{PREFIX}/run?id={{}}"'
    assert link.format(failed["id"]) in ask(db, "GET", f"{PREFIX}/schedule?name=mailer").body
    assert link.format(failed["id"]) in ask(db, "GET", f"{PREFIX}/runs").body
    assert link.format(failed["id"]) in ask(db, "GET", PREFIX).body  # the overview's latest failed run
    assert link.format(emitting["id"]) in ask(db, "GET", f"{PREFIX}/deliveries?all=1").body


def test_the_page_reads_each_of_its_rows_through_an_index(db):
    for sql in (run_store.RUN_RECORD, run_store.RUN_ATTEMPTS, run_store.RUN_EMITTED, run_store.RUN_BACKFILL,
                run_store.RUN_REMAKES):
        assert not scans(db, sql), sql


async def raising_euros():
    raise RuntimeError("€" * 1000)  # 6 bytes a character as JSON writes it


def test_two_hundred_runs_raising_at_once_keep_their_ends_and_stacks_within_d1_s_strings():
    import sqlite3

    db = open_store()
    db._conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2_000_000)  # D1: 2,000,000 bytes a string or row
    raising = [Schedule(f"euro{k:03}", Every(MINUTE), raising_euros) for k in range(200)]
    clock = [0.0]

    async def sleep(seconds):  # a batch D1 refuses is tried again: on a clock of the test's
        clock[0] += seconds

    ticks(db, raising, NINE, NINE + MINUTE, sleep=sleep, monotonic=lambda: clock[0])
    ended = run(db.all("SELECT outcome, stack FROM tickwork_runs"))
    assert len(ended) == 200 and all(r["outcome"] == "failed" and "€" * 1000 in r["stack"] for r in ended)
