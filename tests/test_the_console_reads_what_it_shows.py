"""What a console page or a verb of the command reads follows what it shows, not what the tables
hold (issue 23): the overview's schedule counts are kept as rows change (migration 0021's
triggers), its run counts are of the latest COUNTED runs at most and say so, its deliveries are
read through the indexes of those an operator may act on, and a search or filter that no index
serves looks through SEARCHED names a page and says where it stopped. The rows D1 bills for each
are measured at 10,000 and 1,000,000 by scripts/bench/console.py."""

import re

import pytest
from console_fixtures import NINE, PREFIX, ask
from helpers import every, migrate_from, migrated_before, open_store, run, ticks
from test_the_console_pages import shown
from harness import OperatorHarness

from tickwork import housekeeping_store, operator_store
from tickwork.console import console_store
from tickwork.operator_store import OperatorStore
from tickwork.per_item import Items
from tickwork.schedule_store import MARK_TICK, RECORD_ENDS, RECORD_STARTS, SKIP, TAKE_LEASES
from tickwork.times import DAY, HOUR, MINUTE
from tickwork.words import when

COUNTED = 10_000  # the runs and deliveries the overview counts at most, as docs/how-to/console.md says
SEARCHED = 10_000  # the names a page of a search or filter that no index serves looks through

# The schedules as they are, counted the way the overview once read them: every row.
TRUTH = """
SELECT action IS NOT NULL AS handed_over, removed_at IS NULL AS live, paused <> 0 AS paused, count(*) AS n
FROM tickwork_schedules GROUP BY 1, 2, 3
"""


async def remind():
    pass


def kept(db) -> dict:
    rows = run(db.all(console_store.SCHEDULE_COUNTS))
    return {(r["handed_over"], r["live"], r["paused"]): r["n"] for r in rows if r["n"]}


def truth(db) -> dict:
    return {(r["handed_over"], r["live"], r["paused"]): r["n"] for r in run(db.all(TRUTH))}


def unbound(sql: str) -> tuple:
    return (None,) * max([int(n) for n in re.findall(r"\?(\d+)", sql)] or [0])


def scans(db, sql: str) -> list[str]:
    """The steps of `sql`'s plan that read a table of tickwork's whole: a scan, but of a partial
    index, which holds only the rows its WHERE takes."""
    partial = {name for name, index in db._conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index'")
               if index and " WHERE " in " ".join(index.split())}
    plan = [row[3] for row in db._conn.execute("EXPLAIN QUERY PLAN " + sql, unbound(sql))]
    whole = []
    for step in plan:
        scan = re.match(r"SCAN (tickwork_(?:schedules|runs|deliveries|events)|[sdre])\b"
                        r"(?: USING (?:COVERING )?INDEX (\w+))?", step)
        if scan and scan.group(2) not in partial:
            whole.append(step)
    return whole


def fill(db, schedules: int = 0, runs: int = 0, failed_deliveries: int = 0, start: int = NINE):
    """Rows written straight into the tables, as many as asked (a fixture, not the hand-over API)."""
    db._conn.executescript(f"""
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {schedules})
INSERT INTO tickwork_schedules (name, action, input, form, every_ms, due_at, first_tick, last_tick, label)
SELECT printf('remind@%06d', n), 'app:remind', json_object('customer', n), 'every 86400000', 86400000,
       {start + DAY}, {start}, {start}, 'customer ' || n FROM k WHERE {schedules} > 0;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {runs})
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome)
SELECT 'z' || printf('%012x%019d', {start} + n * 1000, n), 'census', {start} + n * 1000, {start} + n * 1000,
       {start} + n * 1000, {start} + n * 1000 + 5, CASE WHEN n % 10 = 0 THEN 'failed' ELSE 'succeeded' END
FROM k WHERE {runs} > 0;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {failed_deliveries})
INSERT INTO tickwork_events (id, name, body, emitted_at) SELECT 'e' || n, 'order_placed', '{{}}', {start} FROM k
WHERE {failed_deliveries} > 0;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {failed_deliveries})
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, updated_at)
SELECT 'd' || n, 'e' || n, 'EVENTS', 'failed', 3, {start} + n FROM k WHERE {failed_deliveries} > 0;
""")


# -- the overview's counts -------------------------------------------------------------------

def test_the_schedule_counts_kept_agree_with_the_rows_after_every_kind_of_change():
    db = open_store()
    census, tidy = every(1), every(60, name="tidy")
    ticks(db, [census, tidy], NINE)
    items = Items(db, lambda: NINE)
    ids = [run(items.every(remind, {"customer": k}, "15m")) for k in range(4)]
    run(items.once(remind, {"customer": "once"}, NINE + MINUTE))
    assert kept(db) == truth(db)
    store = OperatorStore(db)
    run(store.change("pause", "tidy", "ada", NINE))
    run(store.change("pause", ids[0], "ada", NINE))
    run(store.change("cancel_item", ids[1], "ada", NINE))
    run(items.cancel(ids[2]))
    assert kept(db) == truth(db)
    ticks(db, [census], NINE + 2 * MINUTE)  # tidy no longer declared; the one-off made and ended
    run(store.change("resume", ids[0], "ada", NINE))
    run(items.every(remind, {"customer": 1}, "15m"))  # handed over again after its cancel
    assert kept(db) == truth(db)
    run(db.all(housekeeping_store.ENDED_ITEMS, (NINE + 60 * DAY,)))  # the ended ones deleted
    ticks(db, [census, tidy], NINE + 3 * MINUTE)  # tidy declared again
    assert kept(db) == truth(db) and kept(db)[(0, 1, 1)] == 1  # tidy, paused still


def test_the_schedule_counts_of_a_store_from_before_migration_0021_are_counted_once_as_it_upgrades():
    db = migrated_before("0021")
    fill(db, schedules=30)
    db._conn.execute("UPDATE tickwork_schedules SET paused = 1 WHERE name <= 'remind@000003'")
    db._conn.execute(f"UPDATE tickwork_schedules SET removed_at = {NINE} WHERE name >= 'remind@000028'")
    migrate_from(db, "0021")
    assert kept(db) == truth(db) == {(1, 1, 1): 3, (1, 1, 0): 24, (1, 0, 0): 3}


def test_the_overview_reads_its_counts_and_deliveries_through_indexes_and_no_table_whole():
    db = open_store()
    for sql in (console_store.SCHEDULE_COUNTS, console_store.RUN_COUNTS, console_store.FAILED_SINCE,
                console_store.DELIVERY_COUNTS, console_store.FAILING_DELIVERIES):
        assert not scans(db, sql), sql


def test_a_due_runs_lease_start_and_end_and_a_nothing_due_tick_keep_no_count():
    # A trigger's program is a `Program` step of the statement that fires it.
    db = open_store()
    for sql in (MARK_TICK, TAKE_LEASES, RECORD_STARTS, RECORD_ENDS, SKIP):
        assert "Program" not in [op[1] for op in db._conn.execute("EXPLAIN " + sql, unbound(sql))], sql


def test_the_overview_counts_the_latest_runs_of_the_day_at_most_and_says_back_to_when():
    db = open_store()
    ticks(db, [every(1)], NINE)
    start = NINE - 12 * HOUR
    fill(db, runs=COUNTED + 500, start=start)  # a run a second, one in ten failed
    first = when(start + 501 * 1000)  # the earliest of the latest COUNTED
    page = shown(ask(db, "GET", PREFIX, now=start + (COUNTED + 500) * 1000 + MINUTE))
    assert f"{COUNTED // 10} runs failed of the latest {COUNTED:,}" in page
    assert f"Runs are counted among the latest {COUNTED:,} of the last 24 h, the earliest of them at {first}: " \
           f"the day may hold more." in page
    assert f"Failed runs among the latest {COUNTED:,}, back to {first}" in page


def test_the_overview_claims_no_count_since_a_tick_whose_runs_it_counted_only_in_part():
    # A tick's runs share its tick_at: of the tick the latest COUNTED begin in, some are left out.
    db = open_store()
    ticks(db, [every(1)], NINE)
    fill(db, runs=COUNTED + 500, start=NINE)
    tick = NINE + 1000 * 1000
    db._conn.execute(f"UPDATE tickwork_runs SET tick_at = {tick} WHERE tick_at <= {tick}")  # the first 1,000
    page = shown(ask(db, "GET", PREFIX, now=NINE + 12 * HOUR))
    assert f"since {when(tick)}" not in page and f"back to {when(tick)}" in page  # 500 of its 1,000 not counted


def test_the_overview_counts_every_run_of_the_day_where_there_are_fewer():
    db = open_store()
    ticks(db, [every(1)], NINE)
    fill(db, runs=30, start=NINE)
    page = shown(ask(db, "GET", PREFIX, now=NINE + HOUR))
    assert "3 runs failed in 24 h" in page and "Runs are counted among" not in page


def test_the_overview_says_a_count_of_deliveries_stopped_at_its_bound():
    db = open_store()
    fill(db, failed_deliveries=COUNTED + 1)
    page = shown(ask(db, "GET", PREFIX, now=NINE + HOUR))
    assert f"{COUNTED:,}+ deliveries failed" in page


# -- the deliveries --------------------------------------------------------------------------

def test_the_deliveries_an_operator_may_act_on_are_read_without_those_delivered():
    db = open_store()
    for sql in (operator_store.SELECT_DELIVERIES, operator_store.SELECT_DELIVERY_LOG):
        assert not scans(db, sql), sql


def test_every_delivery_kept_is_read_a_page_along_the_events_index_by_emission_not_sorted_whole():
    db = open_store()
    for sql in (operator_store.SELECT_EVERY_DELIVERY, operator_store.SELECT_EVERY_DELIVERY_LOG):
        plan = [row[3] for row in db._conn.execute("EXPLAIN QUERY PLAN " + sql, unbound(sql))]
        assert scans(db, sql) == ["SCAN e USING INDEX tickwork_events_by_emitted"], plan
        assert "USE TEMP B-TREE FOR RIGHT PART OF ORDER BY" in plan, plan  # d.id within an emission only
    plan = [row[3] for row in db._conn.execute("EXPLAIN QUERY PLAN " + operator_store.SELECT_EVERY_DELIVERY, (None,))]
    assert "USE TEMP B-TREE FOR ORDER BY" not in plan


def test_the_deliveries_listed_are_the_open_ones_or_every_one_oldest_event_first():
    db = open_store()
    fill(db, failed_deliveries=3)
    db._conn.executescript(f"""
INSERT INTO tickwork_events (id, name, body, emitted_at) VALUES ('e9', 'order_placed', '{{}}', {NINE - 1});
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, next_attempt_at, updated_at) VALUES
    ('d9', 'e9', 'EVENTS', 'pending', 0, {NINE}, {NINE}), ('d8', 'e9', 'OTHER', 'succeeded', 1, NULL, {NINE}),
    ('d7', 'e1', 'OTHER', 'outcome_unknown', 1, {NINE}, {NINE});
""")
    open_rows, _ = run(OperatorStore(db).deliveries(False, 100))
    every_row, _ = run(OperatorStore(db).deliveries(True, 100))
    assert [d["id"] for d in open_rows] == ["d9", "d1", "d2", "d3", "d7"]
    assert [d["id"] for d in every_row] == ["d8", "d9", "d1", "d2", "d3", "d7"]


# -- searches and filters that no index serves -----------------------------------------------

@pytest.fixture(scope="module")
def many():
    db = open_store()
    ticks(db, [every(1)], NINE)
    fill(db, schedules=SEARCHED + 20)
    return db


def test_a_search_by_input_looks_through_a_bounded_number_of_schedules_and_says_where_it_stopped(many):
    last = f"remind@{SEARCHED - 1:06d}"  # census sorts first
    page = shown(ask(many, "GET", f"{PREFIX}/schedules?q=%22customer%22%3A{SEARCHED + 5}&in=input"))
    assert "no handed-over schedule matches" in page
    assert f"looks through {SEARCHED:,} schedules a page: this one looked as far as {last}" in page
    body = ask(many, "GET", f"{PREFIX}/schedules?q=%22customer%22%3A{SEARCHED + 5}&in=input").body
    further = re.search(r'href="([^"]*after=[^"]*)">look further', body).group(1)
    page = shown(ask(many, "GET", further.replace("&amp;", "&")))
    assert f"remind@{SEARCHED + 5:06d}" in page and "looked as far as" not in page


def test_a_search_by_label_or_action_is_bounded_the_same_way_and_one_by_name_is_not(many):
    for query in ("q=nobody*&in=label", "q=nothing.*&in=action"):
        assert "looked as far as" in shown(ask(many, "GET", f"{PREFIX}/schedules?{query}")), query
    assert "looked as far as" not in shown(ask(many, "GET", f"{PREFIX}/schedules?q=nobody&in=name"))


def test_a_filtered_page_of_the_command_looks_through_a_bounded_number_of_schedules_and_says_where_it_stopped(
        tmp_path, capsys):
    app = OperatorHarness(tmp_path, capsys)
    app.tick([every(1)], NINE)
    fill(app.db, schedules=SEARCHED + 20)
    last = f"remind@{SEARCHED - 1:06d}"  # census sorts first
    _, page, _ = app.run("schedules", "--state", "paused", now=NINE)
    assert page["schedules"] == [] and page["next_after"] == page["searched_to"] == last
    _, page, _ = app.run("schedules", "--state", "paused", "--after", last, now=NINE)
    assert page["schedules"] == [] and page["next_after"] is None
    _, text, _ = app.run("schedules", "--state", "paused", now=NINE, json_=False)
    assert f"looked through {SEARCHED:,} schedules, as far as {last}" in text
    assert f"more: tickwork schedules --after {last} (with the same filters)" in text
    _, page, _ = app.run("schedules", "--limit", "3", now=NINE)  # no filter: a page, and no window
    assert page["searched_to"] is None and page["next_after"] == "remind@000002"
    app.db.close()


def test_a_name_glob_of_the_command_is_read_from_the_range_its_literal_start_gives_however_far_down(tmp_path, capsys):
    app = OperatorHarness(tmp_path, capsys)
    fill(app.db, schedules=SEARCHED + 20)
    _, page, _ = app.run("schedules", "--name", "remind@0100*", now=NINE)
    assert [s["name"] for s in page["schedules"]] == [f"remind@{n:06d}" for n in range(10_000, 10_021)]
    assert page["searched_to"] is None and page["next_after"] is None
    _, page, _ = app.run("schedules", "--name", "remind@0100*", "--limit", "5", "--after", "remind@010002", now=NINE)
    assert [s["name"] for s in page["schedules"]] == [f"remind@{n:06d}" for n in range(10_003, 10_008)]
    app.db.close()


def test_a_page_of_paused_or_ended_schedules_or_of_a_name_glob_that_is_more_than_a_prefix_is_bounded_too(many):
    # None of the many is paused or ended, and no name holds `nobody`: read on until the page is
    # full, each page would read every row.
    for query, last in (("state=paused", SEARCHED - 1), ("state=ended", SEARCHED - 1),
                        ("q=*nobody*&in=name", SEARCHED - 1), ("q=remind@*nobody&in=name", SEARCHED)):
        page = shown(ask(many, "GET", f"{PREFIX}/schedules?{query}"))
        assert "no handed-over schedule matches" in page, query
        assert f"looked as far as remind@{last:06d}" in page, query  # census sorts first, out of remind@'s range
    for query in ("state=live", "state=all", "q=remind@0001&in=name", "q=remind@0001*&in=name"):
        assert "looked as far as" not in shown(ask(many, "GET", f"{PREFIX}/schedules?{query}")), query



def steps(db, read) -> int:
    """How many hundreds of SQLite's VM instructions `read` takes: what it reads, counted the same
    way each time (no clock)."""
    taken = [0]

    def count():
        taken[0] += 1
        return 0
    db._conn.set_progress_handler(count, 100)
    try:
        run(read())
    finally:
        db._conn.set_progress_handler(None, 100)
    return taken[0]


@pytest.fixture(scope="module")
def far():
    """Three windows of names, the last three moved far down the name order: `zz@8`, `zz@9`, `zz@0`."""
    db = open_store()
    fill(db, schedules=3 * SEARCHED)
    db._conn.execute("UPDATE tickwork_schedules SET name = 'zz@' || substr(name, -1) WHERE name > 'remind@029997'")
    return db


def test_a_search_by_a_prefix_far_down_the_names_finds_it_on_the_first_page(far):
    store = console_store.ConsoleStore(far)
    declared, handed, searched_to = run(store.schedules("name", "zz@*", "all", None, 50))
    assert [s["name"] for s in handed] == ["zz@0", "zz@8", "zz@9"] and searched_to is None


@pytest.mark.parametrize("field, look_for, state", [
    ("name", "*nobody*", "all"), ("name", "remind@*nobody", "all"), ("name", "zz@*", "all"),
    ("input", "nobody", "all"), (None, None, "paused"), (None, None, "ended")])
def test_a_page_of_a_search_or_state_that_few_pass_reads_as_much_among_three_windows_as_among_one(
        many, far, field, look_for, state):
    # The same page at two sizes, the steps SQLite takes counted: what the page reads, however
    # the planner reads it.
    def read(db):
        return lambda: console_store.ConsoleStore(db).schedules(field, look_for, state, None, 50)
    assert steps(far, read(far)) < max(1.3 * steps(many, read(many)), 10)  # 10: a page's first rows


def test_a_backlog_of_deliveries_in_one_state_costs_the_counts_of_the_others_a_window_and_the_page_says_so():
    small, large = open_store(), open_store()
    for db, backlog in ((small, COUNTED), (large, 3 * COUNTED)):
        fill(db, failed_deliveries=backlog)
        db._conn.execute("UPDATE tickwork_deliveries SET state = 'outcome_unknown', next_attempt_at = updated_at")
        db._conn.execute("UPDATE tickwork_deliveries SET state = 'failed' WHERE id IN ('d1', 'd2', 'd3')")
    counts = lambda db: lambda: db.all(console_store.DELIVERY_COUNTS, (COUNTED,))  # noqa: E731
    assert steps(large, counts(large)) < 1.3 * steps(small, counts(small))
    page = shown(ask(large, "GET", PREFIX, now=NINE + HOUR))
    assert "3+ deliveries failed" in page and "0+ deliveries pending" in page
    assert f"{COUNTED - 3:,}+ deliveries outcome_unknown" in page  # among the failing index's first COUNTED
    assert f"Deliveries are counted among {COUNTED:,} of those open in each index at most" in page
