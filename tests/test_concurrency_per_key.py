"""Concurrency per key (issue 25): at most K runs at once of the schedules handed over naming one
key (`concurrency=("api:acme", 4)`), across racing ticks; runs beyond K are neither leased nor
skipped: they stay due, owed, and later ticks make them in due order. Bad values are refused with
`schedule.concurrency_invalid`, nothing written."""

import asyncio

import pytest
from faults import KilledAfter, Killed, Wrapped
from helpers import run, runs, ticks

from tickwork import ScheduleError, call
from tickwork.per_item import Items
from tickwork.store.claims import RECORD_STARTS
from tickwork.times import HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")
MADE: list = []
FIVE_THOUSAND = 5_000


class UnderWay:
    """How many calls of the action are under way at once, at most, and what each was for."""

    def __init__(self):
        self.now = self.most = 0

    def start(self):
        self.now += 1
        self.most = max(self.most, self.now)

    def end(self):
        self.now -= 1


UNDER_WAY = UnderWay()


async def call_the_api():
    UNDER_WAY.start()
    MADE.append(call.input)
    for _ in range(40):
        await asyncio.sleep(0)  # the other calls, and racing tickers, go on meanwhile
    UNDER_WAY.end()


@pytest.fixture(autouse=True)
def cleared():
    global UNDER_WAY
    MADE.clear()
    UNDER_WAY = UnderWay()


def handed(db, moment=NINE - HOUR):
    return Items(db, lambda: moment)


def owed(db, count, key="api:acme", limit=4, at=NINE):
    """`count` one-off calls at `at` naming `key`: ids in the order handed over."""
    return run(handed(db).once_many(call_the_api, [{"k": k} for k in range(count)], at,
                                    concurrency=(key, limit))).ids


def outcomes(db):
    return [r["outcome"] for r in run(db.all("SELECT outcome FROM tickwork_runs ORDER BY due_at, id"))]


def test_at_most_k_go_at_a_tick_and_the_others_wait_owed_in_due_order_never_skipped(db):
    ids = [run(handed(db).once(call_the_api, {"k": k}, NINE + k, concurrency=("api:acme", 4))) for k in range(10)]
    ticks(db, [], NINE + MINUTE)
    assert MADE == [{"k": k} for k in range(4)] and outcomes(db) == ["succeeded"] * 4  # no skip recorded
    ticks(db, [], NINE + 2 * MINUTE, NINE + 3 * MINUTE)
    assert MADE == [{"k": k} for k in range(10)] and outcomes(db) == ["succeeded"] * 10
    assert UNDER_WAY.most == 4 and len(ids) == 10


def test_keys_are_counted_apart_and_schedules_without_a_key_are_not_held_back(db):
    owed(db, 6, key="api:acme", limit=2)
    owed(db, 6, key="api:globex", limit=3)
    free = run(handed(db).once_many(call_the_api, [{"free": k} for k in range(6)], NINE)).ids
    ticks(db, [], NINE)
    assert sorted(str(m) for m in MADE).count("{'free': 0}") == 1 and len(free) == 6
    assert len([m for m in MADE if "free" in m]) == 6 and len(MADE) == 6 + 2 + 3


def test_a_run_under_way_holds_its_slot_until_it_ends_or_its_lease_lapses(db):
    """A ticker killed after its claim leaves its runs `running`: their slots stay taken until
    their leases lapse, then the lapsed runs are recorded lost and the slots go to the runs owed."""
    owed(db, 8, limit=4)
    with pytest.raises(Killed):
        run(tick_on(KilledAfter(db, lambda c: RECORD_STARTS in c.sqls), NINE))
    assert len(MADE) == 4 and outcomes(db) == ["running"] * 4  # the worker died before their ends
    ticks(db, [], NINE + MINUTE)  # the killed ticker's leases still hold: none of the 4 owed goes
    assert len(MADE) == 4 and outcomes(db) == ["running"] * 4
    ticks(db, [], NINE + HOUR)  # past the lease: recorded lease_expired, and the 4 owed go
    assert sorted(m["k"] for m in MADE) == list(range(8))  # all due at 09:00: by id among them
    assert sorted(outcomes(db)) == ["failed"] * 4 + ["succeeded"] * 4


async def tick_on(db, now):
    from tickwork.testing import tick_at

    return await tick_at([], now, db)


class Slowed(Wrapped):
    """Lets the other tickers go on before each call, so what a ticker read is stale by its claim."""

    def __init__(self, inner, rounds):
        super().__init__(inner)
        self.rounds = rounds

    async def _call(self, call, send):
        for _ in range(self.rounds):
            await asyncio.sleep(0)
        return await send()


def test_racing_tickers_one_killed_never_pass_the_limit_and_make_each_run_once(tmp_path):
    from tickwork.adapters.sqlite import SQLiteDatabase
    from tickwork.testing import local_store

    path = tmp_path / "store.db"
    local_store(path=path)
    db = SQLiteDatabase(str(path))
    owed(db, 40, limit=3)
    dbs = [SQLiteDatabase(str(path)) for _ in range(5)]

    async def tickers(now, killed):
        first = KilledAfter(dbs[0], lambda c: RECORD_STARTS in c.sqls) if killed else Slowed(dbs[0], 0)
        wrapped = [first] + [Slowed(d, k * 3) for k, d in enumerate(dbs[1:], 1)]
        return await asyncio.gather(*(tick_on(d, now) for d in wrapped), return_exceptions=True)

    for k in range(60):  # the first minute's tick killed after its claim; past its leases
        run(tickers(NINE + k * MINUTE, killed=k == 0))
    assert UNDER_WAY.most == 3 and sorted(m["k"] for m in MADE) == list(range(40))  # each called once
    records = run(db.all("SELECT schedule, outcome, code FROM tickwork_runs"))
    assert len(records) == len({r["schedule"] for r in records}) == 40  # one record each: none skipped
    lost = [r for r in records if r["outcome"] != "succeeded"]
    assert 0 < len(lost) <= 3 and {r["code"] for r in lost} == {"lease_expired"}  # the killed ticker's


@pytest.mark.faulthandler_timeout(600)  # 1,250 ticks
def test_after_an_outage_five_thousand_owed_go_out_at_most_four_at_a_time_all_made_none_skipped(db):
    owed(db, FIVE_THOUSAND, limit=4)
    moment, count = NINE + 6 * HOUR, 0  # the ticks stopped from 09:00 to 15:00
    while len(MADE) < FIVE_THOUSAND and count < FIVE_THOUSAND:
        ticks(db, [], moment)
        moment, count = moment + MINUTE, count + 1
    assert UNDER_WAY.most == 4 and len(MADE) == FIVE_THOUSAND == len({m["k"] for m in MADE})
    assert count == FIVE_THOUSAND // 4 and set(outcomes(db)) == {"succeeded"}


@pytest.mark.parametrize("bad", [("api:acme", 0), ("api:acme", -1), ("api:acme", 2.5), ("api:acme", True),
                                 ("api:acme", "4"), (7, 4), (None, 4), ("", 4), ("a\nb", 4), ("x" * 201, 4),
                                 "api:acme", 4, ("api:acme",), ("api:acme", 4, 5)])
def test_a_bad_concurrency_is_refused_with_its_code_by_every_form_nothing_written(db, bad):
    forms = [
        lambda: handed(db).once(call_the_api, {}, NINE, concurrency=bad),
        lambda: handed(db).every(call_the_api, {}, "1h", concurrency=bad),
        lambda: handed(db).calendar(call_the_api, {}, "0 9 * * *", concurrency=bad),
        lambda: handed(db).once_many(call_the_api, [{}], NINE, concurrency=bad),
        lambda: handed(db).every_many(call_the_api, [{}], "1h", concurrency=bad),
        lambda: handed(db).calendar_many(call_the_api, [{}], "0 9 * * *", concurrency=bad),
        lambda: handed(db).hand_over([{"action": call_the_api, "input": {}, "at": NINE, "concurrency": bad}]),
    ]
    for form in forms:
        with pytest.raises(ScheduleError) as refused:
            run(form())
        assert refused.value.code == "schedule.concurrency_invalid"
    assert run(db.all("SELECT COUNT(*) AS n FROM tickwork_schedules"))[0]["n"] == 0


def test_every_form_keeps_the_key_on_the_row_and_one_without_keeps_its_id(db):
    plain = run(handed(db).once(call_the_api, {"k": 1}, NINE))
    keyed = run(handed(db).once(call_the_api, {"k": 1}, NINE, concurrency=["api:acme", 4]))
    bulk = run(handed(db).hand_over([{"action": call_the_api, "input": {"k": 2}, "every": "1h",
                                      "concurrency": ("api:acme", 4)}])).ids
    rows = {r["name"]: r for r in run(db.all("SELECT * FROM tickwork_schedules"))}
    assert plain != keyed and rows[plain]["concurrency_key"] is None
    assert (rows[keyed]["concurrency_key"], rows[keyed]["concurrency_limit"]) == ("api:acme", 4)
    assert rows[bulk[0]]["concurrency_key"] == "api:acme"
    assert runs(db, plain) == []


def test_why_says_a_schedule_waits_owed_while_its_keys_runs_fill_the_limit(app):
    ids = owed(app.db, 6, limit=4)
    with pytest.raises(Killed):  # 4 runs left under way, their leases held to 09:16 or so
        run(tick_on(KilledAfter(app.db, lambda c: RECORD_STARTS in c.sqls), NINE))
    [waiting] = [r["name"] for r in app.rows("SELECT name FROM tickwork_schedules WHERE due_at = ?1 LIMIT 1", NINE)]
    assert waiting in ids
    _, answer, _ = app.run("why", waiting, now=NINE + MINUTE)
    assert answer["next_due_why"].endswith("; waiting: 4 of 4 runs of api:acme under way; owed, a tick after one of "
                                           "them ends makes it")
    assert answer["rule"].endswith("; at most 4 runs at once of `api:acme` (`concurrency`)")
    _, answer, _ = app.run("why", waiting, now=NINE + HOUR)  # their leases lapsed: nothing under way
    assert answer["next_due_why"].endswith("; due now: the next tick makes it")


def test_the_console_shows_a_schedules_limit_and_that_it_waits_owed_while_its_keys_runs_fill_it(db):
    from console_fixtures import PREFIX, ask
    from test_the_console_pages import shown

    ids = owed(db, 6, limit=4)
    with pytest.raises(Killed):
        run(tick_on(KilledAfter(db, lambda c: RECORD_STARTS in c.sqls), NINE))
    [waiting] = [r["name"] for r in run(db.all("SELECT name FROM tickwork_schedules WHERE due_at = ?1 LIMIT 1",
                                               (NINE,)))]
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name={waiting}", now=NINE + MINUTE))
    assert waiting in ids and "concurrency at most 4 runs at once of `api:acme` (`concurrency`)" in page
    assert "waiting waiting: 4 of 4 runs of api:acme under way; owed, a tick after one of them ends makes it" in page
    later = shown(ask(db, "GET", f"{PREFIX}/schedule?name={waiting}", now=NINE + HOUR))
    assert "under way" not in later


def steps_to_read_due(count):
    """The SQLite steps SELECT_DUE takes to read a tick's 50 rows of `count` due naming no key."""
    from tickwork.store.schedules import SELECT_DUE
    from tickwork.testing import local_store

    db = local_store()
    run(handed(db).once_many(call_the_api, [{"k": k} for k in range(count)], NINE))
    steps = [0]

    def counted():
        steps[0] += 1

    db._conn.set_progress_handler(counted, 100)
    assert len(db._conn.execute(SELECT_DUE, (NINE + HOUR, 50)).fetchall()) == 50
    db._conn.set_progress_handler(None, 0)
    db.close()
    return steps[0]


def test_the_rows_naming_no_key_are_still_read_in_due_order_no_further_than_a_ticks_limit():
    # The keyed rows are numbered apart: a backlog naming no key is read as before the keys came,
    # up to the tick's limit, not sorted whole.
    assert steps_to_read_due(4_000) < 2 * steps_to_read_due(400)


def test_a_replace_naming_a_key_keeps_it_on_the_new_row(db):
    old = run(handed(db).once(call_the_api, {"k": 1}, NINE))
    new = run(handed(db).replace(old, call_the_api, {"k": 1}, at=NINE, concurrency=("api:acme", 2)))
    [row] = run(db.all("SELECT concurrency_key, concurrency_limit FROM tickwork_schedules WHERE name = ?1", (new,)))
    assert (row["concurrency_key"], row["concurrency_limit"]) == ("api:acme", 2)


def test_the_console_escapes_a_key_the_app_names(db):
    from console_fixtures import PREFIX, ask

    [waiting] = owed(db, 1, key="<b>acme</b>", limit=1)
    page = ask(db, "GET", f"{PREFIX}/schedule?name={waiting}", now=NINE + MINUTE)
    body = page if isinstance(page, str) else str(getattr(page, "body", page))
    assert "<b>acme</b>" not in body and "&lt;b&gt;acme&lt;/b&gt;" in body


def test_keyed_rows_not_yet_due_are_not_read_by_a_tick():
    from tickwork.store.schedules import SELECT_DUE
    from tickwork.testing import local_store

    def steps(count):
        db = local_store()
        run(handed(db).once_many(call_the_api, [{"k": k} for k in range(count)], NINE + HOUR, concurrency=("a", 4)))
        counted = [0]
        db._conn.set_progress_handler(lambda: counted.__setitem__(0, counted[0] + 1), 100)
        assert db._conn.execute(SELECT_DUE, (NINE, 50)).fetchall() == []
        db.close()
        return counted[0]

    assert steps(4_000) < 2 * steps(400) + 5
