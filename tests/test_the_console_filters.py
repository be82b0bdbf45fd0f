"""The console's runs and deliveries pages, filtered and paged (issue 26): runs by a range of one's
own, label, action, trace and error text besides name and outcome, each bad value a 400 naming
it; failed runs read through their own index, filters no index serves within a bounded window
that the page says; deliveries paged beyond 200 by keyset and filtered; and the bulk fixes, each a
dry run first, capped, one operator-log row per change, answered 303 to the page it came from."""

import asyncio
import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from console_fixtures import NINE, NOW, PREFIX, ask, csrf_of, filled_store, said_of
from helpers import open_store, run, tick_at, ticks
from test_the_console_pages import shown
from test_the_console_reads_what_it_shows import fill, scans
from test_rows_written_per_run import entries

from tickwork import Schedule
from tickwork.grid import Every
from tickwork.store import bulk_verbs, delivery_filters, run_filters
from tickwork.errors import ScheduleError
from tickwork.operating.remake import remake, remake_failed
from tickwork.store.bulk_verbs import BulkVerbs
from tickwork.store.run_filters import RunFilter
from tickwork.times import HOUR, MINUTE, NEVER


@pytest.fixture
def db():
    return filled_store()


def runs_page(db, now=NOW, **query) -> str:
    return shown(ask(db, "GET", f"{PREFIX}/runs?" + urlencode(query), now=now))


def rows_of(db, sql, *args):
    return run(db.all(sql, args))


# -- the filters ---------------------------------------------------------------------------------

def test_runs_filter_by_a_time_range_of_ones_own_from_inclusive_to_exclusive(db):
    page = runs_page(db, **{"from": "2026-03-02T09:02Z", "to": "2026-03-02T09:04Z", "name": "census"})
    assert page.count("census") >= 2
    ticks_shown = re.findall(r"2026-03-02 09:0(\d) UTC \(\d+ min ago\) census", page)
    assert sorted(set(ticks_shown)) == ["2", "3"]


def test_runs_filter_by_error_text_in_any_case_finds_the_failing_schedule_only(db):
    page = runs_page(db, error="SERVICE IS DOWN")
    assert "mailer" in page and "census" not in page.split("Runs across schedules")[-1].split("TRACE")[-1]


def test_runs_filter_by_action_label_and_trace(db):
    [item] = rows_of(db, "SELECT name FROM tickwork_schedules WHERE label = 'Ada Lovelace'")
    run(db.all("UPDATE tickwork_schedules SET due_at = ?1 WHERE label = 'Ada Lovelace'", (NINE + 6 * MINUTE,)))
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada'"
               " WHERE label = 'Ada Lovelace'", (NINE + 6 * MINUTE,)))
    ticks(db, [], NINE + 7 * MINUTE)  # the handed-over item's run by hand
    by_label = runs_page(db, label="Ada*", since="all")
    assert item["name"] in by_label and "census" not in by_label.split("DETAIL")[-1]
    by_action = runs_page(db, action="census", since="all")
    assert "census" in by_action.split("DETAIL")[-1] and "mailer" not in by_action.split("DETAIL")[-1]
    [traced] = rows_of(db, "SELECT trace FROM tickwork_runs WHERE schedule = 'mailer' AND trace IS NOT NULL"
                           " ORDER BY tick_at LIMIT 1")
    by_trace = runs_page(db, trace=traced["trace"], since="all")
    assert by_trace.split("DETAIL")[-1].count("mailer") == 1 and traced["trace"] in by_trace


@pytest.mark.parametrize("query, named", [
    ({"outcome": "lost"}, "`outcome=lost`"), ({"from": "yesterday"}, "`from=yesterday`"),
    ({"from": "2026-03-02T10:00Z", "to": "2026-03-02T09:00Z"}, "`to=2026-03-02T09:00Z` is not after from"),
    ({"since": "3d"}, "`since=3d`"), ({"trace": "a b"}, "`trace=a b`"), ({"before": "soon"}, "`before=soon`"),
    ({"error": "x" * 1001}, "at most 1000 characters")])
def test_a_bad_filter_of_runs_is_a_400_naming_it_and_nothing_is_read(db, query, named):
    answer = ask(db, "GET", f"{PREFIX}/runs?" + urlencode(query))
    assert answer.status == 400 and named in answer.body


@pytest.mark.parametrize("query, named", [
    ({"state": "lost"}, "`state=lost`"), ({"all": "yes"}, "`all=yes`"), ({"to": "later"}, "`to=later`"),
    ({"after": "x"}, "`after=x`")])
def test_a_bad_filter_of_deliveries_is_a_400_naming_it(db, query, named):
    answer = ask(db, "GET", f"{PREFIX}/deliveries?" + urlencode(query))
    assert answer.status == 400 and named in answer.body


def test_failed_runs_are_read_through_their_own_index_and_no_filter_reads_a_table_whole():
    db = open_store()
    plans = [run_filters.SELECT_FILTERED_FAILED, run_filters.SELECT_FILTERED_RUNS, run_filters.SELECT_RUNS_STOP,
             run_filters.SELECT_FAILED_STOP, bulk_verbs.CANDIDATES, bulk_verbs.REQUEST_RETRIES,
             bulk_verbs.FORGET_RETRIED, delivery_filters.SELECT_OPEN_PAGE, delivery_filters.SELECT_EVERY_PAGE,
             delivery_filters.EVERY_STOP,
             delivery_filters.SELECT_EVERY_PLAIN, *sum(bulk_verbs.SET_ASIDE_STATEMENTS.values(), ())]
    assert [scans(db, sql) for sql in plans] == [[]] * len(plans)
    plan = " ".join(row[3] for row in db._conn.execute("EXPLAIN QUERY PLAN " + run_filters.SELECT_FILTERED_FAILED,
                                                       (None,) * 12))
    assert "USING INDEX tickwork_runs_failed" in plan


def test_a_run_takes_an_entry_in_the_index_of_failed_runs_only_when_it_fails(db):
    [(failed,)] = db._conn.execute("SELECT count(*) FROM tickwork_runs WHERE outcome = 'failed'").fetchall()
    [(kept,)] = db._conn.execute("SELECT count(*) FROM tickwork_runs").fetchall()
    assert entries(db, "tickwork_runs_failed") == failed == 5 < kept  # mailer's, of every schedule's


def test_a_filter_no_index_serves_looks_through_a_bounded_window_says_where_it_stopped_and_links_on():
    db = open_store()
    fill(db, runs=run_filters.SEARCHED + 500, start=NINE)
    now = NINE + 3 * HOUR
    page = runs_page(db, now=now, error="nobody", since="all")
    assert "no runs match" in page and f"looks through {run_filters.SEARCHED:,} runs a page" in page
    stop = run(run_filters.filtered_runs(db, RunFilter(0, NEVER, error="nobody"), run_filters.LATEST, 51)).stop
    assert stop is not None
    further = run(run_filters.filtered_runs(db, RunFilter(0, NEVER, error="nobody"), stop, 51))
    assert further.rows == [] and further.stop is None  # the 500 left, and no more


def test_a_filter_no_index_serves_pages_on_from_where_it_stopped_without_showing_a_run_twice():
    db = open_store()
    fill(db, runs=run_filters.SEARCHED + 500, start=NINE)
    # Records of ids no tick's form gives (read through the index by tick) among them, half a second on.
    db._conn.execute("INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, outcome) SELECT 'a' || substr(id, 2),"
                     " schedule, due_at, tick_at + 500, outcome FROM tickwork_runs WHERE tick_at % 3000 = 0")
    db._conn.execute("UPDATE tickwork_runs SET detail = 'boom' WHERE outcome = 'failed'")
    [(failed,)] = db._conn.execute("SELECT count(*) FROM tickwork_runs WHERE outcome = 'failed'").fetchall()
    seen: list[str] = []
    before = run_filters.LATEST
    while True:
        page = run(run_filters.filtered_runs(db, RunFilter(0, NEVER, error="BOOM"), before, 2000))
        seen += [row["id"] for row in page.rows]
        if len(page.rows) == 2000:
            before = (page.rows[-1]["tick_at"], page.rows[-1]["id"])
        elif page.stop is not None:
            before = page.stop
        else:
            break
    assert len(seen) == len(set(seen)) == failed > (run_filters.SEARCHED + 500) // 10


def steps(db, sql: str, bound: tuple) -> int:
    """What a statement costs SQLite, in virtual-machine steps (hundreds a count): the reads follow it."""
    counted = [0]

    def step() -> int:
        counted[0] += 1
        return 0

    db._conn.set_progress_handler(step, 100)
    try:
        db._conn.execute(sql, bound).fetchall()
    finally:
        db._conn.set_progress_handler(None, 100)
    return counted[0]


def test_a_filter_many_runs_pass_reads_about_a_page_not_its_window():
    db = open_store()
    fill(db, runs=3 * run_filters.SEARCHED, start=NINE)
    page = RunFilter(0, NEVER, name="cen*").parameters(run_filters.LATEST, 51)  # every run passes
    none_pass = RunFilter(0, NEVER, error="nobody").parameters(run_filters.LATEST, 51)
    assert 10 * steps(db, run_filters.SELECT_FILTERED_RUNS, page) < steps(db, run_filters.SELECT_FILTERED_RUNS,
                                                                            none_pass)


def test_a_filtered_page_of_deliveries_stops_when_full_and_reads_no_further_than_its_window():
    db = open_store()
    fill(db, failed_deliveries=3 * delivery_filters.SEARCHED)
    db._conn.execute("UPDATE tickwork_events SET emitted_at = emitted_at + CAST(substr(id, 2) AS INTEGER)")
    page = delivery_filters.DeliveryFilter(True, queue="EV*").parameters(delivery_filters.EARLIEST, 201)
    none_pass = delivery_filters.DeliveryFilter(True, queue="NOWHERE").parameters(delivery_filters.EARLIEST, 201)
    window = steps(db, delivery_filters.SELECT_EVERY_PAGE, none_pass)
    # A page that fills reads its events and the window's end (along the events' index alone).
    assert steps(db, delivery_filters.SELECT_EVERY_PAGE, page) < 0.7 * window
    db._conn.execute("DELETE FROM tickwork_events WHERE CAST(substr(id, 2) AS INTEGER) > 2 * ?",
                     (delivery_filters.SEARCHED,))
    assert steps(db, delivery_filters.SELECT_EVERY_PAGE, none_pass) > 0.8 * window  # what lies past it is not read


# -- the bulk retry --------------------------------------------------------------------------------

async def failing():
    raise RuntimeError("the ledger is locked")


def three_failing() -> tuple:
    return tuple(Schedule(f"ledger_{k}", Every(15 * MINUTE), failing) for k in range(3))


def failed_store():
    db = open_store()
    ticks(db, list(three_failing()), NINE, NINE + 15 * MINUTE, NINE + 30 * MINUTE)  # two failed due times each
    return db


def post(db, path: str, fields: dict, now: int = NOW):
    token = csrf_of(ask(db, "GET", f"{PREFIX}/runs", now=now).body)
    return ask(db, "POST", path, now=now, headers={"origin": "https://app.example"},
               form={**fields, "csrf": token, "back": f"{PREFIX}/runs?outcome=failed"})


def remade(db) -> list[tuple[str, int]]:
    """The (schedule, due time) of each run made as a remake of a failed run, as the ticks made them."""
    return [(r["schedule"], r["due_at"]) for r in rows_of(
        db, "SELECT r.schedule, r.due_at FROM tickwork_runs AS r JOIN tickwork_backfills AS b "
            "ON b.remake_of IS NOT NULL AND b.schedule = r.schedule AND b.from_at = r.due_at "
            "WHERE r.tick_at > ? ORDER BY r.schedule, r.due_at", NINE + 30 * MINUTE)]


FAILED_DUE = sorted((f"ledger_{k}", due) for k in range(3) for due in (NINE + 15 * MINUTE, NINE + 30 * MINUTE))
NOW_AFTER = NINE + 35 * MINUTE


def test_the_bulk_retry_lists_each_failed_due_time_it_would_make_again_and_the_cap_and_changes_nothing():
    db = failed_store()
    page = shown(post(db, f"{PREFIX}/runs/retry", {"outcome": "failed", "dry": "1"}, now=NOW_AFTER))
    assert "6 of the 6 failed due times this filter shows would each be made again" in page
    assert f"at most {bulk_verbs.MOST} a post" in page and "Make these 6 failed due times again" in page
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_backfills")[0]["n"] == 0
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_operator_log")[0]["n"] == 0


def test_the_bulk_retry_asks_for_each_due_time_once_logs_one_row_each_and_answers_303_to_the_page():
    db = failed_store()
    answer = post(db, f"{PREFIX}/runs/retry", {"outcome": "failed", "since": "all"}, now=NOW_AFTER)
    location = urlsplit(answer.headers["location"])
    assert location.path == f"{PREFIX}/runs" and set(parse_qs(location.query)) == {"outcome", "said", "seal"}
    assert said_of(answer).startswith("6 failed due times asked for again") and "logged as local" in said_of(answer)
    assert "6 failed due times asked for again" in shown(ask(db, "GET", answer.headers["location"], now=NOW_AFTER))
    log = rows_of(db, "SELECT who, verb, schedule, detail FROM tickwork_operator_log ORDER BY schedule")
    assert [(r["who"], r["verb"]) for r in log] == [("local", "remake")] * 6
    assert sorted(r["schedule"] for r in log) == [name for name, _ in FAILED_DUE]
    asked = rows_of(db, "SELECT schedule, from_at, to_at, remake_of FROM tickwork_backfills ORDER BY schedule, from_at")
    assert [(r["schedule"], r["from_at"]) for r in asked] == FAILED_DUE and all(r["remake_of"] for r in asked)
    again = post(db, f"{PREFIX}/runs/retry", {"outcome": "failed", "since": "all"}, now=NOW_AFTER)
    assert said_of(again).startswith("0 failed due times asked for again")  # each waits already
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_operator_log")[0]["n"] == 6


def test_the_bulk_retry_takes_at_most_its_cap_the_latest_failures_first():
    db = failed_store()
    bulk = run(remake_failed(db, RunFilter(0, NEVER, "failed"), "ada", NOW_AFTER, False, most=2))
    assert len(bulk.rows) == 2 and len(bulk.changed) == 2
    assert {r["due_at"] for r in bulk.rows} == {NINE + 30 * MINUTE}
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_operator_log")[0]["n"] == 2


def test_the_bulk_retry_takes_only_the_filters_runs_and_leaves_out_what_the_one_remake_would_saying_why():
    db = failed_store()
    run(db.all("UPDATE tickwork_schedules SET removed_at = 1, ended = 'no longer declared' WHERE name = 'ledger_1'"))
    dry = run(remake_failed(db, RunFilter(0, NEVER, name="ledger_[01]"), "ada", NOW_AFTER, True))
    assert sorted((r["schedule"], r["remakable"]) for r in dry.rows) == [("ledger_0", 1)] * 2 + [("ledger_1", 0)] * 2
    page = shown(post(db, f"{PREFIX}/runs/retry", {"name": "ledger_[01]", "since": "all", "dry": "1"}, now=NOW_AFTER))
    assert "no: its schedule has ended" in page and "Make these 2 failed due times again" in page


def test_the_bulk_retry_makes_again_only_the_due_times_its_schedules_timing_owes_as_the_one_remake():
    db = failed_store()
    # ledger_0 is owed from 09:20 on (as if first seen then): its 09:15 is no occurrence a backfill makes.
    run(db.all("UPDATE tickwork_schedules SET first_tick = ? WHERE name = 'ledger_0'", (NINE + 20 * MINUTE,)))
    early = rows_of(db, "SELECT id FROM tickwork_runs WHERE schedule = 'ledger_0' AND due_at = ?", NINE + 15 * MINUTE)
    with pytest.raises(ScheduleError, match="is no occurrence its timing owes"):
        run(remake(db, early[0]["id"], "ada", NOW_AFTER))
    page = shown(post(db, f"{PREFIX}/runs/retry", {"outcome": "failed", "since": "all", "dry": "1"}, now=NOW_AFTER))
    assert "5 of the 6 failed due times this filter shows" in page and "is no occurrence its timing owes" in page
    answer = post(db, f"{PREFIX}/runs/retry", {"outcome": "failed", "since": "all"}, now=NOW_AFTER)
    assert said_of(answer).startswith("5 failed due times asked for again")
    ticks(db, list(three_failing()), NOW_AFTER + MINUTE, NOW_AFTER + 2 * MINUTE)
    assert remade(db) == [due for due in FAILED_DUE if due != ("ledger_0", NINE + 15 * MINUTE)]  # each asked, made


def test_the_bulk_retry_racing_ticks_makes_each_failed_due_time_again_once():
    db = failed_store()
    schedules = three_failing()
    run(remake_failed(db, RunFilter(0, NEVER, "failed"), "ada", NOW_AFTER, False))

    async def race():
        await asyncio.gather(*(tick_at(db, list(schedules), NOW_AFTER + MINUTE) for _ in range(4)),
                             remake_failed(db, RunFilter(0, NEVER, "failed"), "bob", NOW_AFTER, False))

    run(race())
    ticks(db, list(schedules), NOW_AFTER + 2 * MINUTE, NOW_AFTER + 3 * MINUTE)
    assert remade(db) == FAILED_DUE  # each failed due time once, none twice
    logged = rows_of(db, "SELECT who FROM tickwork_operator_log")
    assert [r["who"] for r in logged] == ["ada"] * 6  # bob's found each waiting already


def test_the_bulk_retry_refuses_a_bad_filter_with_a_400_and_changes_nothing():
    db = failed_store()
    answer = post(db, f"{PREFIX}/runs/retry", {"from": "whenever"}, now=NINE + 20 * MINUTE)
    assert answer.status == 400 and "`from=whenever`" in answer.body
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_operator_log")[0]["n"] == 0


# -- deliveries ----------------------------------------------------------------------------------

def many_failed_deliveries(n: int = 250):
    db = open_store()
    fill(db, failed_deliveries=n)
    db._conn.execute("UPDATE tickwork_events SET emitted_at = emitted_at + CAST(substr(id, 2) AS INTEGER)")
    db._conn.execute("UPDATE tickwork_deliveries SET queue = 'AUDIT' WHERE CAST(substr(id, 2) AS INTEGER) % 5 = 0")
    return db


def deliveries_page(db, **query) -> str:
    return shown(ask(db, "GET", f"{PREFIX}/deliveries?" + urlencode(query), now=NINE + HOUR))


def test_deliveries_page_beyond_200_by_keyset_each_once():
    db = many_failed_deliveries()
    first = ask(db, "GET", f"{PREFIX}/deliveries", now=NINE + HOUR)
    [after] = re.findall(r'href="[^"]*after=([0-9]+(?:%3A|:)d[0-9]+)[^"]*">next page', first.body)
    second = deliveries_page(db, after=after.replace("%3A", ":"))
    ids = re.findall(r"\bd[0-9]+\b", shown(first)) + re.findall(r"\bd[0-9]+\b", second)
    assert len(set(ids)) == 250 and "next page" not in second


def test_deliveries_filter_by_queue_state_and_time():
    db = many_failed_deliveries()
    audit = deliveries_page(db, queue="AUDIT")
    assert len(set(re.findall(r"\bd[0-9]+\b", audit))) == 50
    early = deliveries_page(db, state="failed", to=str(NINE + 11))
    assert sorted(set(re.findall(r"\bd[0-9]+\b", early))) == sorted(f"d{k}" for k in range(1, 11))
    assert "no deliveries" in deliveries_page(db, state="delivered")


def test_deliveries_filter_by_the_emitting_schedule(db):
    page = deliveries_page(db, schedule="place")
    assert "order_placed" in page
    assert "no deliveries" in deliveries_page(db, schedule="census")


def test_dismissing_in_bulk_lists_first_then_takes_at_most_the_cap_one_log_row_each_and_answers_303():
    db = many_failed_deliveries()
    now = NINE + HOUR
    token = csrf_of(ask(db, "GET", f"{PREFIX}/deliveries", now=now).body)
    form = {"queue": "AUDIT", "csrf": token, "back": f"{PREFIX}/deliveries?queue=AUDIT"}
    dry = shown(ask(db, "POST", f"{PREFIX}/deliveries/dismiss", now=now, headers={"origin": "https://app.example"},
                    form={**form, "dry": "1"}))
    assert "Dismiss would take these 50 deliveries, at most 100 a post" in dry and "Dismiss these 50 deliveries" in dry
    origin = {"origin": "https://app.example"}
    done = ask(db, "POST", f"{PREFIX}/deliveries/dismiss", now=now, headers=origin, form=form)
    assert done.headers["location"].startswith(f"{PREFIX}/deliveries?queue=AUDIT&said=")
    assert said_of(done).startswith("50 deliveries dismissed (one operator-log row each, logged as local)")
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_deliveries WHERE state = 'dismissed'")[0]["n"] == 50
    log = rows_of(db, "SELECT verb, delivery, detail FROM tickwork_operator_log")
    assert len(log) == 50 and {r["detail"] for r in log} == {"from failed (in bulk)"}
    everything = {"csrf": token, "back": f"{PREFIX}/deliveries"}
    capped = ask(db, "POST", f"{PREFIX}/deliveries/cancel", now=now, headers={"origin": "https://app.example"},
                 form=everything)
    assert said_of(capped).startswith("100 deliveries cancelled")
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_operator_log")[0]["n"] == 150
    assert "50 deliveries dismissed" in shown(ask(db, "GET", done.headers["location"], now=now))


def test_a_bulk_change_of_deliveries_racing_itself_changes_and_logs_each_once():
    db = many_failed_deliveries(30)
    filtered = delivery_filters.DeliveryFilter(False)

    async def race():
        return await asyncio.gather(*(BulkVerbs(db).set_aside(verb, filtered, "ada", NINE, False)
                                      for verb in ("dismiss", "cancel", "dismiss")))

    changed = [bulk.changed for bulk in run(race())]
    assert sorted(sum(changed, [])) == sorted(f"d{k}" for k in range(1, 31))
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_operator_log")[0]["n"] == 30



def test_every_delivery_kept_is_looked_through_a_window_of_events_a_page_each_shown_once():
    db = open_store()
    n = delivery_filters.SEARCHED + 700
    fill(db, failed_deliveries=n)
    db._conn.execute("UPDATE tickwork_events SET emitted_at = emitted_at + CAST(substr(id, 2) AS INTEGER) / 21")
    db._conn.execute("UPDATE tickwork_deliveries SET state = 'delivered'")
    db._conn.execute("UPDATE tickwork_deliveries SET queue = 'AUDIT' WHERE CAST(substr(id, 2) AS INTEGER) % 7 = 0")
    filtered = delivery_filters.DeliveryFilter(True, "delivered", "AUDIT")
    seen: list[str] = []
    after, pages = delivery_filters.EARLIEST, 0
    while True:
        pages += 1
        page = run(delivery_filters.filtered_deliveries(db, filtered, after, 2000))
        seen += [row["id"] for row in page.rows]
        if len(page.rows) == 2000:
            after = (page.rows[-1]["emitted_at"], page.rows[-1]["id"])
        elif page.stop is not None:
            after = (page.stop, "")
        else:
            break
    assert pages == 2 and len(seen) == len(set(seen)) == n // 7
    first = deliveries_page(db, all="1", state="delivered", queue="NOWHERE")
    assert "no deliveries" in first and "look further" in first
    assert f"looks through the deliveries of {delivery_filters.SEARCHED:,} events at most" in first


def hidden_fields(html: str, action: str) -> dict:
    """The fields the form posting to `action` carries (its first such form)."""
    form = re.search(r'<form[^>]*action="[^"]*' + re.escape(action) + r'"[^>]*>(.*?)</form>', html, re.S)
    assert form is not None, action
    return dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', form[1]))


def test_a_bulk_dismiss_from_a_page_looked_further_takes_the_deliveries_that_page_shows():
    db = open_store()
    n = delivery_filters.SEARCHED + 300
    fill(db, failed_deliveries=n)
    db._conn.execute("UPDATE tickwork_events SET emitted_at = emitted_at + CAST(substr(id, 2) AS INTEGER)")
    db._conn.execute("UPDATE tickwork_deliveries SET queue = 'AUDIT' WHERE CAST(substr(id, 2) AS INTEGER) > ?",
                     (delivery_filters.SEARCHED,))  # none of the first window's
    now = NINE + HOUR
    first = ask(db, "GET", f"{PREFIX}/deliveries?all=1&queue=AUDIT", now=now).body
    [further] = re.findall(r'href="([^"]*)">look further', first)
    later = ask(db, "GET", further.replace("&amp;", "&"), now=now).body
    fields = {key: value.replace("&amp;", "&") for key, value in hidden_fields(later, "/deliveries/dismiss").items()}
    dry = shown(ask(db, "POST", f"{PREFIX}/deliveries/dismiss", now=now, headers={"origin": "https://app.example"},
                    form=fields))
    assert "Dismiss would take these 100 deliveries, at most 100 a post" in dry
    confirm = {key: value.replace("&amp;", "&") for key, value in
               hidden_fields(ask(db, "POST", f"{PREFIX}/deliveries/dismiss", now=now,
                                 headers={"origin": "https://app.example"}, form=fields).body,
                             "/deliveries/dismiss").items()}
    done = ask(db, "POST", f"{PREFIX}/deliveries/dismiss", now=now, headers={"origin": "https://app.example"},
               form=confirm)
    assert said_of(done).startswith("100 deliveries dismissed")
    assert rows_of(db, "SELECT count(*) AS n FROM tickwork_deliveries WHERE state = 'dismissed'")[0]["n"] == 100


def test_the_run_a_window_ends_at_is_looked_at_once_across_looks():
    db = open_store()
    fill(db, runs=run_filters.SEARCHED + 500, start=NINE)
    db._conn.execute("UPDATE tickwork_runs SET detail = 'boom' WHERE id IN (SELECT id FROM tickwork_runs"
                     " ORDER BY tick_at DESC, id DESC LIMIT 1 OFFSET ?)", (run_filters.SEARCHED - 1,))
    first = run(run_filters.filtered_runs(db, RunFilter(0, NEVER, error="boom"), run_filters.LATEST, 51))
    assert first.stop is not None
    further = run(run_filters.filtered_runs(db, RunFilter(0, NEVER, error="boom"), first.stop, 51))
    assert len(first.rows) + len(further.rows) == 1


def test_a_bulk_count_in_an_address_is_not_shown_as_if_a_change_had_said_it(db):
    assert "asked for again" not in runs_page(db, outcome="failed", retried="3")
    assert "deliveries dismissed" not in deliveries_page(db, dismissed="50", all="1")
