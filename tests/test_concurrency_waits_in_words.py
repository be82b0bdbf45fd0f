"""Issue 25, concurrency per key: a run that waited for its key says so in `history` and on the
console's pages of its schedule and of the run (`waited 2 min for api:acme (2 running)`). Nothing
is written for it: the wait is worked out from the run's record, from the first tick that could
make it (its due time, delayed by its jitter; after ticks stopped, the first tick back, from the
gaps recorded) to the tick that made it; a wait under a minute, which no minute's tick passed over,
is not said, nor is the lateness of a run whose schedule names no key."""

from test_concurrency_per_key import call_the_api, handed, owed

from helpers import run, ticks
from tickwork.times import HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")



def history_of(app, name, now):
    _, answer, _ = app.run("history", name, now=now)
    return answer["runs"]


def made_at(db, ids):
    """Each id's run record: the tick that made it."""
    rows = run(db.all("SELECT schedule, tick_at FROM tickwork_runs"))
    return {r["schedule"]: r["tick_at"] for r in rows if r["schedule"] in ids}


def test_history_says_how_long_each_run_waited_for_its_key(app):
    ids = owed(app.db, 6, limit=2)
    ticks(app.db, [], NINE, NINE + MINUTE, NINE + 2 * MINUTE)
    made = made_at(app.db, ids)
    for id in ids:
        [item] = history_of(app, id, NINE + HOUR)
        waited = made[id] - NINE
        if waited == 0:
            assert item["waited_for_key"] is None
        else:
            assert item["waited_for_key"] == {"ms": waited, "key": "api:acme",
                                              "words": f"waited {waited // MINUTE} min for api:acme (2 running)"}
    assert sorted(made[id] - NINE for id in ids) == [0, 0, MINUTE, MINUTE, 2 * MINUTE, 2 * MINUTE]
    _, _, out = app.run("history", ids[-1], now=NINE + HOUR, json_=False)
    waited_last = made[ids[-1]] - NINE
    assert (f"waited {waited_last // MINUTE} min for api:acme" in out) == (waited_last > 0)


def test_after_ticks_stopped_the_wait_counts_from_the_first_tick_back(app):
    ids = owed(app.db, 4, limit=2)
    ticks(app.db, [], NINE - MINUTE)
    back = NINE + HOUR  # no tick from 08:59 to 10:00: the gap is recorded by the tick back
    ticks(app.db, [], back, back + MINUTE)
    made = made_at(app.db, ids)
    waits = sorted((history_of(app, id, back + HOUR)[0]["waited_for_key"] or {}).get("ms", 0) for id in ids)
    assert waits == [0, 0, MINUTE, MINUTE] and sorted(made.values()) == [back, back, back + MINUTE, back + MINUTE]


def test_a_run_naming_no_key_made_late_is_not_said_to_have_waited(app):
    [plain] = run(handed(app.db).once_many(call_the_api, [{"k": 0}], NINE)).ids
    ticks(app.db, [], NINE + 5 * MINUTE)
    assert history_of(app, plain, NINE + HOUR)[0]["waited_for_key"] is None


def test_the_console_says_it_on_the_schedules_page_and_the_runs_page(db):
    from console_fixtures import PREFIX, ask
    from test_the_console_pages import shown

    ids = owed(db, 3, limit=2)
    ticks(db, [], NINE, NINE + MINUTE)
    [late] = [id for id, at in made_at(db, ids).items() if at == NINE + MINUTE]
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name={late}", now=NINE + HOUR))
    assert "waited 1 min for api:acme (2 running)" in page
    [record] = run(db.all("SELECT id FROM tickwork_runs WHERE schedule = ?1", (late,)))
    page = shown(ask(db, "GET", f"{PREFIX}/run?id={record['id']}", now=NINE + HOUR))
    assert "concurrency waited 1 min for api:acme (2 running)" in page and "waited waited" not in page
    [early] = [id for id in ids if id != late][:1]
    assert "waited" not in shown(ask(db, "GET", f"{PREFIX}/schedule?name={early}", now=NINE + HOUR))


def test_a_run_a_backfill_or_remake_made_late_is_not_said_to_have_waited_for_its_key(db):
    from tickwork.operating.concurrency_words import waited_words

    ids = owed(db, 3, limit=2)
    ticks(db, [], NINE, NINE + MINUTE)
    [late] = [id for id, at in made_at(db, ids).items() if at == NINE + MINUTE]
    [record] = run(db.all("SELECT * FROM tickwork_runs WHERE schedule = ?1", (late,)))
    [state] = run(db.all("SELECT * FROM tickwork_schedules WHERE name = ?1", (late,)))
    assert waited_words(record, state, []) == "waited 1 min for api:acme (2 running)"
    remade = {**record, "backfill": "bf_1", "tick_at": NINE + 3 * HOUR}  # as a backfill's run is recorded
    assert waited_words(remade, state, []) is None
