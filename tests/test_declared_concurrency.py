"""Issue 25, concurrency per key, its declared form: `concurrency: 4` in a .jadpo declaration (and
`concurrency=4` on the decorators) means at most 4 runs at once of the action across its schedules;
`concurrency: api:acme 4` (`concurrency=("api:acme", 4)`) of a key the app names, shared with every
schedule and item naming it. The build refuses any other value with `schedule.concurrency_invalid`
at its line; the deploy's reconcile keeps the key and limit on each row, and a change of them is a
change of the declared set (its marker says "changed")."""

import asyncio
from dataclasses import replace

import pytest
from helpers import every, run, ticks
from test_build import ACTIONS, CENSUS, codes, project

from tickwork import call
from tickwork.app import App, action_of_entry
from tickwork.per_item import Items
from tickwork.times import HOUR, MINUTE, utc
from tickwork_build.build import build

NINE = utc("2026-03-02 09:00")
UNDER_WAY: list[int] = [0, 0]  # now, most
MADE: list[str] = []  # a call's due time, one each


async def sync_account():
    UNDER_WAY[0] += 1
    UNDER_WAY[1] = max(UNDER_WAY)
    MADE.append(str(call.at))
    for _ in range(40):
        await asyncio.sleep(0)  # the other calls go on meanwhile
    UNDER_WAY[0] -= 1


@pytest.fixture(autouse=True)
def cleared():
    UNDER_WAY[:] = [0, 0]
    MADE.clear()


def with_items(items: str) -> str:
    return CENSUS.replace("every: 15m", f"every: 15m\n        {items}")


def spec_of(tmp_path, items: str):
    [spec] = build(project(tmp_path, {"c.jadpo": with_items(items)})).schedules
    return spec


def test_a_limit_alone_is_the_actions_own_and_a_key_and_limit_are_written_to_the_manifest(tmp_path):
    alone = spec_of(tmp_path / "a", "concurrency: 4").manifest_entry()
    assert alone["concurrency_limit"] == 4 and "concurrency_key" not in alone
    named = spec_of(tmp_path / "b", "concurrency: api:acme 4").manifest_entry()
    assert (named["concurrency_key"], named["concurrency_limit"]) == ("api:acme", 4)
    assert "concurrency_limit" not in spec_of(tmp_path / "c", "limit: 2m").manifest_entry()


def test_a_concurrency_key_joins_only_its_own_words_an_item_after_it_on_its_line_is_an_item():
    from tickwork_build.jadpo import parse

    def items(line: str) -> list[tuple[str, str]]:
        [declaration], problems = parse(f"schedule s {{\n  every: 15m\n  {line}\n  run: f()\n}}\n", "s.jadpo", "d", "m")
        assert problems == []
        return [(item.key, item.value) for item in declaration.items][1:-1]

    assert items("concurrency: 4 limit:2m") == [("concurrency", "4"), ("limit", "2m")]
    assert items("concurrency: api:acme:eu 4 starts:2027") == [("concurrency", "api:acme:eu 4"), ("starts", "2027")]
    assert items("concurrency: api:acme 4") == [("concurrency", "api:acme 4")]
    assert items("limit: api:acme 4") == [("limit", ""), ("api", "acme 4")]  # any other key reads as ever


@pytest.mark.parametrize("value", ["0", "four", "api:acme", "api:acme 0", "api:acme 2.5",
                                   "10001", "-1", '"" 4'])
def test_a_concurrency_that_is_no_limit_or_key_and_limit_is_concurrency_invalid_at_its_line(tmp_path, value):
    assert codes(project(tmp_path, {"c.jadpo": with_items(f"concurrency: {value}")})) == [
        ("schedule.concurrency_invalid", "chore_census", 5)]


def test_the_decorators_take_a_limit_or_a_key_and_limit_as_items_do(tmp_path):
    decorated = ACTIONS + (
        '\nfrom tickwork import calendar, pulse, schedule\n'
        '@calendar("0 9 1 * *", concurrency=4)\nasync def monthly_statement():\n    pass\n'
        '@schedule(every="1h", concurrency=["api:acme", 2])\nasync def sync():\n    pass\n'
        '@pulse(cycle="1h", concurrency=("api:acme", 0))\nasync def sweep():\n    pass\n')
    assert codes(project(tmp_path, {}, actions=decorated)) == [("schedule.concurrency_invalid", "sweep", 17)]
    fixed = decorated.replace('("api:acme", 0)', '"api:acme 2"')
    specs = {s.name: s for s in build(project(tmp_path / "fixed", {}, actions=fixed)).schedules}
    assert (specs["monthly_statement"].concurrency_key, specs["monthly_statement"].concurrency_limit) == (None, 4)
    assert (specs["sync"].concurrency_key, specs["sync"].concurrency_limit) == ("api:acme", 2)
    assert (specs["sweep"].concurrency_key, specs["sweep"].concurrency_limit) == ("api:acme", 2)


def test_a_limit_alone_counts_under_the_actions_name_a_named_key_under_its_own():
    entry = {"kind": "schedule", "name": "s", "every_ms": HOUR, "action": "sync_account", "source": "s:1",
             "concurrency_limit": 3}
    assert App._schedule_of(entry, sync_account).concurrency == (f"{__name__}.sync_account", 3)
    named = App._schedule_of(entry | {"concurrency_key": "api:acme"}, sync_account)
    assert named.concurrency == ("api:acme", 3)
    unlimited = {k: v for k, v in entry.items() if k != "concurrency_limit"}
    assert App._schedule_of(unlimited, sync_account).concurrency is None


def accounts(count: int, limit=("api:acme", 2)):
    return [replace(every(60, f"account_{k}", sync_account), concurrency=limit) for k in range(count)]


def test_declared_schedules_sharing_a_key_run_at_most_k_at_once_the_others_wait_owed_in_due_order(db):
    schedules = accounts(5)
    ticks(db, schedules, NINE - HOUR)  # the deploy: each row keeps its key and limit; first due at NINE
    rows = run(db.all("SELECT concurrency_key, concurrency_limit FROM tickwork_schedules ORDER BY name"))
    assert [(r["concurrency_key"], r["concurrency_limit"]) for r in rows] == [("api:acme", 2)] * 5
    ticks(db, schedules, NINE)
    assert len(MADE) == 2 and UNDER_WAY[1] == 2
    ticks(db, schedules, NINE + MINUTE, NINE + 2 * MINUTE)
    assert len(MADE) == 5 and UNDER_WAY[1] == 2
    skipped = run(db.all("SELECT COUNT(*) AS n FROM tickwork_runs WHERE outcome = 'skipped'"))
    assert skipped[0]["n"] == 0


def test_a_declared_key_is_shared_with_the_items_naming_it(db):
    schedules = accounts(2, ("api:acme", 3))
    ticks(db, schedules, NINE - HOUR)
    run(Items(db, lambda: NINE - HOUR).once_many(sync_account, [{"k": k} for k in range(3)], NINE - MINUTE,
                                                 concurrency=("api:acme", 3)))
    ticks(db, schedules, NINE)
    assert len(MADE) == 3 and UNDER_WAY[1] == 3  # 3 items due first; the declared wait
    ticks(db, schedules, NINE + MINUTE)
    assert len(MADE) == 5 and UNDER_WAY[1] == 3


def test_a_limit_added_changed_or_dropped_is_kept_on_the_row_and_marked_changed(db):
    [plain] = accounts(1, None)
    ticks(db, [plain], NINE - HOUR)
    for limit in [("api:acme", 2), ("api:acme", 3), None]:
        ticks(db, [replace(plain, concurrency=limit)], NINE - HOUR + MINUTE)
        row = run(db.all("SELECT concurrency_key, concurrency_limit FROM tickwork_schedules"))[0]
        assert (row["concurrency_key"], row["concurrency_limit"]) == (limit or (None, None))
    marks = run(db.all("SELECT changed FROM tickwork_deploys ORDER BY at, id"))
    assert [m["changed"] for m in marks][-3:] == ['{"account_0": ["concurrency"]}'] * 3


def test_racing_tickers_one_killed_never_pass_a_key_declared_and_handed_over_and_make_each_run_once(tmp_path):
    from faults import KilledAfter
    from test_concurrency_per_key import Slowed

    from tickwork.adapters.sqlite import SQLiteDatabase
    from tickwork.store.claims import RECORD_STARTS
    from tickwork.testing import local_store, tick_at

    path = tmp_path / "store.db"
    local_store(path=path)
    db = SQLiteDatabase(str(path))
    schedules = accounts(12, ("api:acme", 3))  # hourly: each due at 09:00, not again within the 40 ticks
    run(tick_at(schedules, NINE - HOUR, db))  # the deploy: each first due at 09:00
    run(Items(db, lambda: NINE - HOUR).once_many(sync_account, [{"k": k} for k in range(12)], NINE,
                                                 concurrency=("api:acme", 3)))
    dbs = [SQLiteDatabase(str(path)) for _ in range(4)]

    async def tickers(now, killed):
        first = KilledAfter(dbs[0], lambda c: RECORD_STARTS in c.sqls) if killed else Slowed(dbs[0], 0)
        wrapped = [first] + [Slowed(d, k * 3) for k, d in enumerate(dbs[1:], 1)]
        return await asyncio.gather(*(tick_at(schedules, now, d) for d in wrapped), return_exceptions=True)

    for k in range(40):  # the first minute's tick killed after its claim; its runs lost until their leases lapse
        run(tickers(NINE + k * MINUTE, killed=k == 0))
    assert UNDER_WAY[1] == 3  # never more than the key's limit at once, declared and handed over together
    records = run(db.all("SELECT schedule, outcome, code FROM tickwork_runs WHERE due_at = ?1", (NINE,)))
    assert len(records) == len({r["schedule"] for r in records}) == 24  # each due time once: none skipped
    lost = [r for r in records if r["outcome"] != "succeeded"]
    assert 0 < len(lost) <= 3 and {r["code"] for r in lost} == {"lease_expired"}  # the killed ticker's


def test_schedules_sharing_a_key_with_two_limits_are_concurrency_invalid_at_the_later_declaration(tmp_path):
    tally = CENSUS.replace("chore_census {", "chore_tally {")
    two = (CENSUS.replace("every: 15m", "every: 15m\n        concurrency: api:acme 4")
           + tally.replace("every: 15m", "every: 1h\n        concurrency: api:acme 2"))
    assert codes(project(tmp_path, {"c.jadpo": two})) == [("schedule.concurrency_invalid", "chore_tally", 10)]
    same = two.replace("api:acme 2", "api:acme 4")
    assert len(build(project(tmp_path / "same", {"c.jadpo": same})).schedules) == 2


def through_workflow(name: str, binding: str, limit: int = 1):
    entry = {"kind": "schedule", "name": name, "every_ms": HOUR, "workflow": binding, "source": f"{name}:1",
             "concurrency_limit": limit}
    return App._schedule_of(entry, action_of_entry(entry))


def test_a_workflow_schedules_own_key_is_its_workflows_not_the_stand_in_action_every_workflow_shares(db):
    from tickwork import env
    from tickwork.testing import Workflows

    schedules = [through_workflow("export", "EXPORTS"), through_workflow("report", "REPORTS")]
    assert [s.concurrency for s in schedules] == [("workflow:EXPORTS", 1), ("workflow:REPORTS", 1)]
    exports, reports = Workflows(), Workflows()
    with env.given(EXPORTS=exports, REPORTS=reports):
        ticks(db, schedules, NINE - HOUR, NINE)
    assert (len(exports.ids), len(reports.ids)) == (1, 1)  # each Workflow's limit of 1, neither held by the other


def test_workflow_schedules_of_two_workflows_each_give_their_own_workflow_a_limit(tmp_path):
    from test_build_workflows import EXPORTS_BOUND

    bound = EXPORTS_BOUND + EXPORTS_BOUND[EXPORTS_BOUND.index("[[workflows]]"):].replace("EXPORTS", "REPORTS")
    census = CENSUS.replace("run: queue_chore_census()", "workflow: EXPORTS\n        concurrency: 4")
    tally = census.replace("chore_census {", "chore_tally {").replace("EXPORTS", "REPORTS")
    assert len(build(project(tmp_path, {"c.jadpo": census + tally.replace("4", "2")}, databases=bound)).schedules) == 2
    same = census + tally.replace("REPORTS", "EXPORTS").replace("concurrency: 4", "concurrency: 2")
    assert codes(project(tmp_path / "same", {"c.jadpo": same}, databases=bound)) == [
        ("schedule.concurrency_invalid", "chore_tally", 10)]
