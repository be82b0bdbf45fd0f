"""Issue 25, concurrency per key: runs beyond a key's limit wait for the next tick *or mark*. While
queues are bound a cron invocation ticks again at each 10-second mark of its minute, and each mark
makes what the key's limit leaves, oldest due first, never skipping a run for having waited: a
backlog under a key of limit 2 goes out 2 a mark, not 2 a minute."""

from dataclasses import replace

from helpers import open_store, run
from test_a_cron_invocation import Wall, invoke

from tickwork import call
from tickwork.app import App
from tickwork.grid import Every
from tickwork.model import Schedule
from tickwork.per_item import Items
from tickwork.times import HOUR, MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")
MADE: list[tuple[int, int]] = []  # (the due time, the tick's clock) of each call


async def call_the_api():
    MADE.append((call.at, CLOCK.at))
    CLOCK.at += 2 * SECOND  # a call takes a while; the invocation's next mark is still ahead


CLOCK = Wall(NINE)
QUEUES = {"EVENTS": "events"}  # an app with queues bound ticks at each 10-second mark


def keyed(db, count, limit=2):
    """`count` one-off calls due a second apart from 08:59, naming `api:acme` with `limit`."""
    items = Items(db, lambda: NINE - HOUR)
    for k in range(count):
        run(items.once(call_the_api, {"k": k}, NINE - MINUTE + k * SECOND, concurrency=("api:acme", limit)))


def test_runs_beyond_the_limit_go_at_the_next_marks_in_due_order_never_skipped():
    global CLOCK
    db, CLOCK = open_store(), Wall(NINE + 300)
    keyed(db, 7)
    reports = invoke(App("DB", (), producers=QUEUES), db, CLOCK)
    assert [(r.at - NINE) // SECOND for r in reports if r.runs] == [0, 10, 20, 30]
    assert [len(r.runs) for r in reports if r.runs] == [2, 2, 2, 1]
    assert [due for due, _ in MADE] == [NINE - MINUTE + k * SECOND for k in range(7)]  # oldest due first
    assert run(db.all("SELECT COUNT(*) AS n FROM tickwork_runs WHERE outcome != 'succeeded'"))[0]["n"] == 0


def test_without_queues_the_rest_wait_for_the_next_minute():
    global CLOCK
    db, CLOCK = open_store(), Wall(NINE + 300)
    keyed(db, 3)
    assert [len(r.runs) for r in invoke(App("DB", ()), db, CLOCK)] == [2]


def test_declared_schedules_of_one_action_go_at_the_marks_too():
    global CLOCK
    db = open_store()
    accounts = tuple(replace(Schedule(f"account_{k}", Every(HOUR), call_the_api), concurrency=("sync", 1))
                     for k in range(3))
    invoke(App("DB", accounts, producers=QUEUES), db, Wall(NINE - HOUR), scheduled=NINE - HOUR)  # the deploy
    MADE.clear()
    CLOCK = Wall(NINE + 300)
    reports = invoke(App("DB", accounts, producers=QUEUES), db, CLOCK)
    assert [(r.at - NINE) // SECOND for r in reports if r.runs] == [0, 10, 20]
