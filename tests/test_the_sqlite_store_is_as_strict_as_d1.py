"""The SQLite store the tests run on refuses and binds as D1 does through the Worker (issue 23,
"The CPython store is kinder than D1"): an invocation's calls capped at 1,000 (50 on Free), a
batch counted as one, ints bound as the JS numbers D1 binds as REAL, a BigInt refused with
D1_TYPE_ERROR, whole numbers read back as ints as Pyodide gives them. Checked on the host's
Miniflare D1: `?1 || 'x'` of 5 is '5.0x', a TEXT column keeps '5.0', an INTEGER one 5."""

from contextlib import suppress

import pytest
from harness import send_statement
from helpers import run, runs, tick_at

from tickwork import Schedule, ScheduleError, items
from tickwork.adapters.sqlite import D1Refused
from tickwork.database import FREE_QUERIES, PAID_QUERIES, PAST_THE_CAP
from tickwork.grid import Every
from tickwork.model import Outcome
from tickwork.per_item import Items
from tickwork.times import DAY, utc

SUNDAY = utc("2026-01-04 12:00")
BIGINT = 2**53 - 1  # Pyodide hands this int, and any larger, to JS as a BigInt


async def calls(db, count: int) -> None:
    for _ in range(count):
        await db.all("SELECT 1")


def test_one_invocation_makes_1000_calls_and_d1_refuses_the_1001st(db):
    async def invocation():
        with db.invocation():
            await calls(db, PAID_QUERIES)
            with pytest.raises(D1Refused, match=PAST_THE_CAP):
                await db.all("SELECT 1")

    run(invocation())


def test_a_batch_is_one_call_of_the_invocation_however_many_statements_it_holds(db):
    async def invocation():
        with db.invocation():
            await calls(db, PAID_QUERIES - 1)
            await db.batch([("SELECT 1", ())] * 10)
            with pytest.raises(D1Refused, match=PAST_THE_CAP):
                await db.batch([("SELECT 1", ())])

    run(invocation())


def test_an_app_whose_ticks_make_at_most_50_statements_gets_the_free_plans_50_calls(db):
    async def invocation():
        with db.invocation(statements_per_tick=40):
            await calls(db, FREE_QUERIES)
            with pytest.raises(D1Refused, match=PAST_THE_CAP):
                await db.all("SELECT 1")

    run(invocation())


def test_the_ticks_of_a_cron_invocation_share_its_calls(db):
    async def invocation():
        with db.invocation():
            await calls(db, PAID_QUERIES)
            with pytest.raises(D1Refused, match=PAST_THE_CAP):
                await tick_at(db, [], SUNDAY)

    run(invocation())


def test_each_invocation_has_its_own_calls(db):
    async def two():
        for _ in range(2):
            with db.invocation():
                await calls(db, PAID_QUERIES)

    run(two())


def test_an_int_binds_as_real_as_d1_binds_a_js_number(db):
    [row] = run(db.all("SELECT typeof(?1) AS type, ?1 || 'x' AS joined, ?1 / 2 AS half", (5,)))
    assert row == {"type": "real", "joined": "5.0x", "half": 2.5}


def test_a_real_bound_into_a_text_column_is_kept_as_5_point_0_and_into_an_integer_one_as_5(db):
    run(db.all("CREATE TABLE kept (i INTEGER, t TEXT)"))
    run(db.all("INSERT INTO kept VALUES (?1, ?1)", (5,)))
    assert run(db.all("SELECT typeof(i) AS i, t FROM kept")) == [{"i": "integer", "t": "5.0"}]


def test_whole_numbers_come_back_as_ints_and_integers_past_2_53_rounded_as_pyodide_gives_them(db):
    [row] = run(db.all("SELECT 5.0 AS whole, 2.5 AS half, 9007199254740991 AS safe, 9007199254740993 AS past"))
    assert row == {"whole": 5, "half": 2.5, "safe": 9007199254740991, "past": 9007199254740992.0}
    assert type(row["whole"]) is int and type(row["past"]) is float


@pytest.mark.parametrize("value", [2**53 + 1, BIGINT, -BIGINT])
def test_an_int_past_what_a_js_number_holds_is_a_bigint_d1_refuses(db, value):
    with pytest.raises(D1Refused, match=f"^D1_TYPE_ERROR: Type 'bigint' not supported for value '{value}'$"):
        run(db.all("SELECT ?1 AS n", (value,)))


def test_the_largest_int_a_js_number_takes_binds(db):
    assert run(db.all("SELECT ?1 AS n", (BIGINT - 1,))) == [{"n": BIGINT - 1}]


def test_a_single_hand_over_past_the_invocations_calls_points_to_the_bulk_calls(db):
    async def invocation():
        handing = Items(db, lambda: SUNDAY)
        with db.invocation():
            for k in range(PAID_QUERIES):
                await handing.every(send_statement, {"customer": k}, "1d")
            with pytest.raises(ScheduleError, match="every_many") as refused:
                await handing.every(send_statement, {"customer": "one too many"}, "1d")
        return refused.value

    refused = run(invocation())
    assert refused.code == "items.statements_used_up" and PAST_THE_CAP in refused.message


async def one_at_a_time():
    for k in range(10_000):
        await items.every(send_statement, {"customer": k}, "1d")


ONE_AT_A_TIME = Schedule("enrol", Every(DAY), one_at_a_time)


def test_a_run_handing_over_one_call_at_a_time_past_the_ticks_cap_fails_naming_the_bulk_calls(db):
    run(tick_at(db, [ONE_AT_A_TIME], SUNDAY))
    before = db.round_trips
    [report] = run(tick_at(db, [ONE_AT_A_TIME], SUNDAY + DAY, max_statements=900)).runs
    assert report.outcome == Outcome.FAILED and "items.statements_used_up" in report.detail
    assert "every_many" in report.detail and db.round_trips - before <= 900
    assert runs(db, "enrol")[-1]["outcome"] == "failed"  # its end recorded, within the cap


async def past_the_invocations_calls():
    for k in range(PAID_QUERIES + 1):
        await items.every(send_statement, {"customer": k}, "1d")


PAST_THE_CALLS = Schedule("enrol", Every(DAY), past_the_invocations_calls)


def test_a_tick_whose_run_passed_d1s_calls_leaves_its_end_to_the_lease_rather_than_retrying(db):
    pauses = []

    async def pause(seconds):
        pauses.append(seconds)
        if len(pauses) == 3:
            raise RuntimeError("the tick retried a write D1 refuses for the rest of the invocation")

    run(tick_at(db, [PAST_THE_CALLS], SUNDAY))
    with suppress(D1Refused):  # what the tick does after the run is refused too (its housekeeping)
        run(tick_at(db, [PAST_THE_CALLS], SUNDAY + DAY, sleep=pause))
    assert pauses == [] and runs(db, "enrol")[-1]["outcome"] == "running"  # ended by a later tick, lapsed


def test_a_string_past_d1s_two_million_bytes_is_refused_as_d1_refuses_it(db):
    run(db.all("CREATE TABLE notes (body TEXT)"))
    run(db.all("INSERT INTO notes VALUES (?1)", ("x" * 1_999_000,)))
    with pytest.raises(Exception, match="too big"):
        run(db.all("INSERT INTO notes VALUES (?1)", ("x" * 2_000_001,)))
