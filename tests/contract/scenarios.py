"""The store contract tickwork relies on: one scenario a rule, each an `async def scenario(db, now)`
on a store migrated with tickwork's migrations and nothing in it, `now` the time it acts at.

The same functions run on CPython's SQLite store (tests/contract/test_the_store_contract.py), in
the local Workers host against Miniflare's D1 through `D1Database`
(tests/e2e/test_the_contract_on_d1.py), and, those marked `reads`, through the operator's
readers, Miniflare's file and wrangler. So this module imports tickwork and nothing else: no
pytest, no test helpers, nothing the Worker lacks.

`reads`: the scenario writes nothing, so a read-only reader runs it too. `as_d1`: it holds only
where values bind as through the Worker's D1 binding (an int a REAL, a BigInt refused) and an
invocation's calls are capped; SQLite binding as sqlite3 does breaks it, which is why the unit
tests' store binds as D1.
"""

import asyncio
import json

from tickwork.database import PAID_QUERIES, PAST_THE_CAP
from tickwork.model import Code
from tickwork.operator_store import PAUSE
from tickwork.schedule_store import (
    HEALTH,
    RECORD_GAP,
    SCHEMA,
    SELECT_DUE,
    SELECT_SCHEMA,
    SELECT_STATE,
    STILL_RUNNING,
    Claim,
    End,
    ScheduleStore,
    Seed,
    run_id,
)
from tickwork.times import DAY, MINUTE, SECOND

SCENARIOS = []
LEASE = 16 * MINUTE  # how long a tick's leases last past it: its budget and a minute


def rule(reads: bool = False, as_d1: bool = False):
    def kept(scenario):
        scenario.reads, scenario.as_d1 = reads, as_d1
        SCENARIOS.append(scenario)
        return scenario

    return kept


async def declared(db, now, *names, every=MINUTE):
    """Declared schedules' rows, each first due at `now`, as a deploy's reconcile writes them."""
    seeds = [Seed(name, every, f"every {every}", now) for name in names]
    await ScheduleStore(db).reconcile(seeds, [], [], None, now)


async def state_of(db, name):
    [row] = await db.all(SELECT_STATE, (name,))
    return row


def claim(name, due, every=MINUTE):
    return Claim(name=name, due=due, next_due=due + every, run=run_id(due))


async def failed(awaitable) -> str | None:
    """What the statement or batch raised (each store raises its own type), or None."""
    try:
        await awaitable
    except Exception as error:
        return f"{type(error).__name__}: {error}"
    return None


@rule()
async def a_lease_is_taken_once_when_two_ticks_race_for_one_due_time(db, now):
    await declared(db, now, "census")
    store = ScheduleStore(db)
    first, second = claim("census", now), claim("census", now)

    won = await asyncio.gather(store.claim([first], now + LEASE, tick=now, started=now),
                               store.claim([second], now + LEASE, tick=now, started=now))

    assert sorted(len(claimed.leased) for claimed in won) == [0, 1], won
    [winner] = won[0].leased | won[1].leased
    assert won[0].recorded | won[1].recorded == {winner}  # only the winner's start is recorded
    row = await state_of(db, "census")
    assert (row["lease_run"], row["lease_open"], row["due_at"]) == (winner, 1, now + MINUTE)
    assert await db.all("SELECT id, outcome FROM tickwork_runs") == [{"id": winner, "outcome": "running"}]


@rule()
async def an_end_gives_back_its_own_lease_and_no_other(db, now):
    await declared(db, now, "census", "mailer")
    store = ScheduleStore(db)
    census, mailer = claim("census", now), claim("mailer", now)
    await store.claim([census, mailer], now + LEASE, tick=now, started=now)

    await db.batch(store.ending([End("census", census.run, "succeeded", None, None, None, now + 5)]))

    assert (await state_of(db, "census"))["lease_open"] == 0
    assert (await state_of(db, "mailer"))["lease_open"] == 1
    # written again, as after an error that hid its landing: the record keeps the first end
    await db.batch(store.ending([End("census", census.run, "failed", "internal_fault", "raised", None, now + 9)]))
    assert await db.all("SELECT outcome, ended_at FROM tickwork_runs WHERE id = ?1", (census.run,)) == [
        {"outcome": "succeeded", "ended_at": now + 5}]


@rule()
async def a_lapsed_lease_is_ended_once_by_racing_ticks_and_retried_once(db, now):
    await declared(db, now, "census", every=DAY)
    store = ScheduleStore(db)
    await store.reach(now, (LEASE, LEASE), clock=now)
    lost = claim("census", now, every=DAY)
    await store.claim([lost], now + LEASE, tick=now, started=now)
    later = now + LEASE + MINUTE

    reached = await store.reach(later, (LEASE, LEASE), clock=later)
    assert reached.lapsed
    retries = json.dumps({"census": [2, MINUTE]})  # two attempts, a minute apart
    # the racers' clocks a second apart, so a second end or retry would show in what was written
    await asyncio.gather(*(store.expire_leases((at, reached.lapse_from), retries, tick=at)
                           for at in (later, later + SECOND)))

    [ended] = await db.all("SELECT outcome, code, ended_at, detail FROM tickwork_runs")
    assert ended["ended_at"] in (later, later + SECOND), ended  # whichever racer came first
    assert ended == {"outcome": "failed", "code": Code.LEASE_EXPIRED, "ended_at": ended["ended_at"],
                     "detail": f"the run held its lease past {ended['ended_at']} and its end was never recorded: "
                               "its worker was lost, or could not reach D1 to record the end"}
    row = await state_of(db, "census")
    # a second retry would have put aside the first retry's due time, not the next day's
    assert (row["retry_attempt"], row["retry_next"], row["due_at"]) == (2, now + DAY, ended["ended_at"] + MINUTE)
    assert not (await store.reach(later + MINUTE, (LEASE, LEASE), clock=later + MINUTE)).lapsed


@rule()
async def a_batch_with_a_failing_statement_leaves_nothing_of_the_batch(db, now):
    await declared(db, now, "census")
    store = ScheduleStore(db)
    ended = claim("census", now)
    await store.claim([ended], now + LEASE, tick=now, started=now)
    await db.batch(store.ending([End("census", ended.run, "succeeded", None, None, None, now + 5)]))

    # a run's own write goes behind the check that its record is still running, which fails
    # (outcome is NOT NULL) once its end is recorded: the write before the check goes too
    refused = await failed(db.batch([(RECORD_GAP, (now, now - 5 * MINUTE, now)), (STILL_RUNNING, (ended.run,))]))

    assert refused is not None and "NOT NULL" in refused, refused
    assert await db.all("SELECT * FROM tickwork_gaps") == []
    await db.batch([(RECORD_GAP, (now, now - 5 * MINUTE, now))])  # and the store goes on answering
    assert await db.all("SELECT to_tick FROM tickwork_gaps") == [{"to_tick": now}]


@rule()
async def returning_rows_are_the_witness_of_who_changed_a_row(db, now):
    await declared(db, now, "census")

    first, second = await asyncio.gather(db.all(PAUSE, ("census",)), db.all(PAUSE, ("census",)))

    assert sorted([first, second], key=len) == [[], [{"name": "census"}]]


@rule()
async def a_conflicting_insert_does_nothing_so_racing_ticks_record_a_gap_once(db, now):
    gap = (RECORD_GAP, (now, now - 5 * MINUTE, now))

    await asyncio.gather(db.all(*gap), db.batch([gap]), db.all(*gap))

    assert await db.all("SELECT to_tick, from_tick FROM tickwork_gaps") == [
        {"to_tick": now, "from_tick": now - 5 * MINUTE}]


@rule()
async def a_schedule_handed_over_again_keeps_its_one_row_and_its_due_time(db, now):
    store = ScheduleStore(db)
    item = ("remind@c1", "app:remind", "{}", '{"customer": 1}', f"every {MINUTE}", MINUTE)

    await store.hand_over(*item, now + MINUTE, None, now)
    await asyncio.gather(*(store.hand_over(*item, now + 2 * MINUTE, None, now + MINUTE) for _ in range(2)))

    assert await db.all("SELECT name, due_at, first_tick FROM tickwork_schedules") == [
        {"name": "remind@c1", "due_at": now + MINUTE, "first_tick": now}]


@rule()
async def the_due_read_takes_at_most_the_rows_a_bound_number_allows_oldest_first(db, now):
    await declared(db, now - 2 * MINUTE, "a")
    await declared(db, now - MINUTE, "b")
    await declared(db, now, "c")

    capped = await db.all(SELECT_DUE, (now, 2))
    every = await db.all(SELECT_DUE, (now, -1))

    assert [row["name"] for row in capped] == ["a", "b"]
    assert [row["name"] for row in every] == ["a", "b", "c"]


@rule(reads=True)
async def null_binds_as_null(db, now):
    assert await db.all("SELECT ?1 IS NULL AS is_null, typeof(?1) AS type", (None,)) == [
        {"is_null": 1, "type": "null"}]


@rule(reads=True)
async def integers_within_what_a_js_number_holds_come_back_exact(db, now):
    values = (0, -1, now, 2**31, 2**53 - 2, -(2**53 - 2))
    # one statement binding them all: through wrangler each statement is a process of its own
    [row] = await db.all("SELECT " + ", ".join(f"?{k} AS n{k}" for k in range(1, len(values) + 1)), values)
    assert list(row.values()) == list(values) and all(type(n) is int for n in row.values()), row


@rule(reads=True)
async def text_comes_back_as_it_was_bound(db, now):
    texts = ("", "it's", 'a "quoted" name', "Grüße, 世界 🎉", "line\nbreak", "-- not a comment",
             "BEGIN TRANSACTION; COMMIT;", "?1 and ?2")
    [row] = await db.all("SELECT " + ", ".join(f"?{k} AS t{k}" for k in range(1, len(texts) + 1)), texts)
    assert list(row.values()) == list(texts), row


@rule(reads=True)
async def numbers_inside_a_bound_json_text_stay_integers(db, now):
    # tickwork passes the rows of a claim, an end, a seed as one JSON text: no number in it binds
    rows = await db.all("SELECT value, typeof(value) AS type FROM json_each(?1)", (json.dumps([now, -1, 0]),))
    assert rows == [{"value": now, "type": "integer"}, {"value": -1, "type": "integer"},
                    {"value": 0, "type": "integer"}]


@rule(reads=True)
async def a_batch_answers_each_statements_rows_in_order(db, now):
    answered = await db.batch([("SELECT ?1 AS a", (1,)), ("SELECT ?1 AS b, ?2 AS c", ("x", None)),
                               ("SELECT 1 AS d WHERE 0", ())])
    assert answered == [[{"a": 1}], [{"b": "x", "c": None}], []]


@rule(reads=True)
async def a_migrated_store_is_at_the_runtimes_schema_and_tells_its_health(db, now):
    assert await db.all(SELECT_SCHEMA) == [{"schema_version": SCHEMA}]
    assert await db.all(HEALTH) == [{"last_tick": None, "last_clock": None, "failing": "[]"}]


@rule(as_d1=True)
async def an_int_binds_as_a_real_so_a_number_made_text_needs_a_cast(db, now):
    [row] = await db.all("SELECT typeof(?1) AS type, ?1 || '' AS text, CAST(?1 AS INTEGER) || '' AS cast", (now,))
    assert row == {"type": "real", "text": f"{now}.0", "cast": f"{now}"}
    # a column of INTEGER affinity keeps it an integer, which is why times bind with no CAST
    await db.all(RECORD_GAP, (now, now - 5 * MINUTE, now))
    assert await db.all("SELECT typeof(to_tick) AS type FROM tickwork_gaps") == [{"type": "integer"}]


@rule(as_d1=True)
async def an_int_past_what_a_js_number_holds_is_refused(db, now):
    for value in (2**53 - 1, 2**53, -(2**53), 2**64):
        refused = await failed(db.all("SELECT ?1 AS n", (value,)))
        assert refused is not None and f"D1_TYPE_ERROR: Type 'bigint' not supported for value '{value}'" in refused, (
            value, refused)


@rule(as_d1=True)
async def an_invocation_makes_1000_calls_and_the_1001st_is_refused(db, now):
    for _ in range(PAID_QUERIES - 1):
        await db.all("SELECT 1 AS one")
    await db.batch([("SELECT 1 AS one", ())] * 10)  # a batch is one call
    refused = await failed(db.all("SELECT 1 AS one"))
    assert refused is not None and PAST_THE_CAP in refused, refused


READS = [scenario for scenario in SCENARIOS if scenario.reads]
BY_NAME = {scenario.__name__: scenario for scenario in SCENARIOS}
