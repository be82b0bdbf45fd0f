"""The console's pictures and what the overview and a schedule's page show at a glance (issue
26): a grid of recent due times by outcome and runs per hour as inline SVG, the overview's
counts and lists that lead on, whole times written whole, an opt-in refresh, a phone's tables."""

import re

import pytest
from console_fixtures import NINE, NOW, PREFIX, ask, broken, filled_store
from helpers import calendar, every, open_store, run, ticks
from test_the_console_pages import shown
from test_the_console_reads_what_it_shows import fill, scans

from tickwork.app import App
from tickwork.console import charts, console_store, pages
from tickwork.console.html import table
from tickwork.console.parts import CSS, in_zone, iso, moment
from tickwork.per_item import Items
from tickwork.operating.words import when
from tickwork.times import DAY, HOUR, MINUTE, utc


@pytest.fixture(scope="module")
def db():
    return filled_store()


# -- times ------------------------------------------------------------------------------------

def test_a_whole_time_is_written_without_milliseconds_and_a_time_with_some_keeps_them():
    assert iso(utc("2026-03-02 09:00")) == "2026-03-02T09:00:00Z"
    assert iso(utc("2026-03-02 09:00") + 250) == "2026-03-02T09:00:00.250Z"
    assert 'datetime="2026-03-02T09:00:00Z"' in moment(utc("2026-03-02 09:00"), NOW)


def test_a_time_in_a_schedule_s_zone_is_as_precise_as_in_utc():
    assert in_zone(utc("2026-03-02 09:00"), "Europe/Berlin") == "2026-03-02 10:00 CET (Europe/Berlin)"
    assert in_zone(utc("2026-03-02 09:00") + 250, "Europe/Berlin") == "2026-03-02 10:00:00.250 CET (Europe/Berlin)"
    assert when(utc("2026-03-02 09:00") + 250) == "2026-03-02 09:00:00.250 UTC"


def test_no_page_writes_a_whole_time_with_its_milliseconds(db):
    for path in ("", "/schedule?name=census", "/schedule?name=weekly", "/runs"):
        assert ".000Z" not in ask(db, "GET", PREFIX + path).body, path


# -- the grid of due times ----------------------------------------------------------------------

def record(due: int, outcome: str, tick: int | None = None, **more) -> dict:
    return {"id": f"z{due}{tick or due}", "schedule": "census", "due_at": due, "tick_at": tick or due,
            "outcome": outcome, **more}


def test_each_due_time_is_one_cell_its_latest_attempt_saying_what_it_came_to():
    found = charts.cells([
        record(NINE, "succeeded"),
        record(NINE + MINUTE, "failed", code="internal_fault", attempt=1),
        record(NINE + MINUTE, "succeeded", tick=NINE + 2 * MINUTE, attempt=2),
        record(NINE + 3 * MINUTE, "failed", code="internal_fault"),
        record(NINE + 4 * MINUTE, "skipped", code="paused"),
        record(NINE + 5 * MINUTE, "succeeded", covers=3, covers_first=NINE, covers_last=NINE + 5 * MINUTE),
        record(NINE + 6 * MINUTE, "running"),
    ])
    assert [(cell.kind, cell.letter, cell.attempts) for cell in found] == [
        ("succeeded", "", 1), ("retried", "R", 2), ("failed", "", 1), ("skipped", "P", 1), ("missed", "M", 1),
        ("running", "", 1)]


def test_each_outcome_has_a_shape_of_its_own_so_the_grid_reads_without_colour():
    drawn = {kind: re.sub(r'fill="[^"]*"|stroke="[^"]*"', "", "".join(charts.shape(kind))) for kind in charts.KINDS}
    assert len(set(drawn.values())) == len(charts.KINDS)


def test_a_cell_s_title_says_its_schedule_due_time_and_outcome_its_name_escaped():
    cell = charts.cells([{**record(NINE, "skipped", code="overdue"), "schedule": "<b>&mail"}])[0]
    drawn = charts.cell_svg(cell, "/ops/schedule?name=x")
    assert "<title>&lt;b&gt;&amp;mail, due 2026-03-02 09:00 UTC: skipped: the call was later than its " in drawn
    assert "<b>" not in drawn and drawn.startswith('<a href="/ops/schedule?name=x"><svg')


def test_the_overview_draws_the_schedules_with_recent_runs_a_cell_per_due_time_linked_to_its_run(db):
    page = ask(db, "GET", PREFIX).body
    grid = page[page.index("Recent due times"):page.index("Gaps in the ticks")]
    rows = re.findall(r'<tr><td data-label="SCHEDULE"><a href="/ops/schedule\?name=(\w+)".*?</tr>', grid)
    assert rows[0] == "mailer"  # failing first
    assert grid.count('class="cell failed"') == 5 and 'class="cell succeeded"' in grid
    first = run(db.all("SELECT id FROM tickwork_runs WHERE schedule = 'mailer' ORDER BY due_at LIMIT 1"))[0]["id"]
    assert f'<a href="/ops/run?id={first}"><svg' in grid  # the run's own page
    assert "more: every run" not in grid


def test_the_overview_s_grid_stops_at_its_schedules_and_leads_to_the_runs_for_more():
    db = open_store()
    many = [every(1, f"job{k:02d}") for k in range(pages.GRID_ROWS + 1)]
    ticks(db, many, NINE, NINE + MINUTE)
    grid = ask(db, "GET", PREFIX, now=NINE + 2 * MINUTE).body.split("Recent due times")[1].split("Gaps in")[0]
    assert grid.count('data-label="SCHEDULE"') == pages.GRID_ROWS
    assert '<a href="/ops/runs?since=24h">more: every run of the last day</a>' in grid


def test_a_schedule_s_page_draws_its_due_times_of_the_history_shown(db):
    page = ask(db, "GET", PREFIX + "/schedule?name=mailer").body
    grid = page[page.index("Due times, by outcome"):page.index("History, newest first")]
    assert grid.count('class="cell failed"') == 5 and "<title>mailer, due 2026-03-02 09:01 UTC: failed" in grid


# -- runs per hour ------------------------------------------------------------------------------

def test_runs_and_failures_are_counted_per_hour_over_the_week_and_none_older_is_read():
    db = open_store()
    fill(db, runs=20, start=NINE - 8 * DAY)  # a week and a day before: outside the window
    fill(db, runs=30, start=NINE + HOUR)  # a run a second, one in ten failed
    rows = run(db.all(console_store.RUNS_BY_HOUR, (NINE - 7 * DAY, console_store.CHARTED, HOUR, NINE - DAY)))
    assert [(r["hour"], r["n"], r["failed"]) for r in rows] == [(NINE + HOUR, 30, 3)]
    assert not scans(db, console_store.RUNS_BY_HOUR) and not scans(db, console_store.OVERVIEW_GRID)


@pytest.mark.parametrize(("day", "before"), [(30, 20), (console_store.COUNTED + 300, 200)])
def test_the_overview_s_counts_of_the_day_are_read_with_its_bars_and_are_those_of_the_day_s_latest_runs(day, before):
    db = open_store()
    fill(db, runs=before, start=NINE - 3 * DAY)  # within the week, before the day
    since = NINE - DAY + 1800 * 1000  # within an hour of runs: counted in two rows, before it and since
    fill(db, runs=day, start=since - 1000 * (day // 3))
    batched = []
    real = db.batch
    db.batch = lambda statements: (batched.extend(statements), real(statements))[1]
    found = run(console_store.ConsoleStore(db).overview(since, charted_since=NINE - 7 * DAY))
    counted = run(db.all(console_store.RUN_COUNTS, (since, console_store.COUNTED)))[0]
    assert found.runs == {key: counted[key] for key in ("succeeded", "failed", "skipped", "n", "first_tick")}
    assert console_store.RUN_COUNTS not in [sql for sql, _ in batched]


def test_the_overview_draws_runs_and_failures_per_hour_and_per_6_hours_with_axes_in_text(db):
    page = ask(db, "GET", PREFIX).body
    charted = page[page.index("Runs and failures"):page.index("Recent due times")]
    assert charted.count('<svg viewBox="0 0 480 150"') == 2
    assert charted.count('<g class="bar">') == 24 + 28
    assert "<title>2026-03-02 09:00 UTC to 2026-03-02 10:00 UTC: 11 runs, 5 failed</title>" in charted
    assert '>04:00</text>' in charted and '>Sun 01</text>' in charted


# -- a phone ------------------------------------------------------------------------------------

def test_every_cell_of_a_table_names_its_column_for_a_narrow_screen_to_write_before_it():
    drawn = table(["SCHEDULE", "LAST ERROR", ""], [["census", "the <mail> service is down", "x"]])
    assert ('<td data-label="SCHEDULE">census</td><td data-label="LAST ERROR">the &lt;mail&gt; service is down</td>'
            '<td>x</td>') in drawn


def test_a_fact_a_run_lacks_is_an_empty_cell_which_a_narrow_screen_does_not_name():
    db = open_store()
    ticks(db, [every(1)], NINE)
    fill(db, runs=3, start=NINE)  # records with no trace
    history = ask(db, "GET", PREFIX + "/schedule?name=census", now=NINE + HOUR).body.split("History, newest")[1]
    assert '<td data-label="TRACE"></td>' in history and "td:empty { display: none; }" in CSS


def test_on_a_narrow_screen_the_header_wraps_and_each_row_of_a_table_is_a_block_of_its_facts():
    narrow = CSS[CSS.index("@media (max-width: 40em)"):]
    assert "header { background: #1b1f24; color: #fff; padding: .6em 1.2em; display: flex; flex-wrap: wrap;" in CSS
    assert "table, thead, tbody, tr, td { display: block; }" in narrow
    assert "td[data-label]::before { content: attr(data-label);" in narrow
    assert "overflow-wrap: anywhere" in narrow


# -- the overview's lists and counts lead on ------------------------------------------------------

def failing_items(count: int):
    """`count` schedules handed over at run time, each labelled, each failing every minute."""
    db = open_store()
    ids = [run(Items(db, lambda: NINE).every(broken, {"customer": k}, "1m", label=f"customer {k}"))
           for k in range(count)]
    ticks(db, [], NINE + MINUTE, NINE + 2 * MINUTE)
    return db, ids


def failed_runs_listed(db) -> str:
    page = ask(db, "GET", PREFIX, now=NINE + 3 * MINUTE).body
    return page[page.index("Failed runs since"):page.index("Deliveries failing")]


def test_the_failed_runs_show_each_per_item_schedule_s_label_beside_its_id():
    db, ids = failing_items(2)
    listed = failed_runs_listed(db)
    for k, id in enumerate(ids):
        assert f'{id}</a><span class="zone">label customer {k}</span>' in listed


def test_the_failed_runs_stop_at_ten_schedules_and_lead_to_the_runs_page_of_every_failure():
    db, _ = failing_items(pages.FAILING_MOST + 1)
    listed = failed_runs_listed(db)
    assert listed.count('data-label="SCHEDULE"') == pages.FAILING_MOST
    assert '<a href="/ops/runs?since=24h&amp;outcome=failed">more: every failed run of the last day</a>' in listed


def test_ten_schedules_failing_or_fewer_need_no_more():
    db, _ = failing_items(pages.FAILING_MOST)
    assert "more: every failed run" not in failed_runs_listed(db)


@pytest.mark.parametrize(("count", "href"), [
    ("declared", "/ops/schedules"), ("paused", "/ops/schedules?state=paused"),
    ("ended or removed", "/ops/schedules?state=ended"),
    ("runs failed in 24 h", "/ops/runs?since=24h&amp;outcome=failed"),
    ("runs skipped in 24 h", "/ops/runs?since=24h&amp;outcome=skipped"),
    ("deliveries outcome_unknown", "/ops/deliveries"),
])
def test_each_count_of_the_overview_links_to_the_page_that_lists_them(db, count, href):
    counts = ask(db, "GET", PREFIX).body.split('class="counts"')[1]
    assert re.search(f'<a href="{re.escape(href)}"><b>[0-9,+]+</b>{re.escape(count)}</a>', counts)


# -- refresh ----------------------------------------------------------------------------------

def test_a_page_offers_to_refresh_itself_every_30_s_and_does_only_when_asked(db):
    plain = ask(db, "GET", PREFIX + "/schedule?name=census").body
    assert 'http-equiv="refresh"' not in plain
    assert '<a href="/ops/schedule?name=census&amp;refresh=30" class="refresh">refresh every 30 s</a>' in plain
    asked = ask(db, "GET", PREFIX + "/schedule?name=census&refresh=30").body
    assert '<meta http-equiv="refresh" content="30">' in asked
    assert '<a href="/ops/schedule?name=census" class="refresh">refreshing every 30 s: stop</a>' in asked


def test_an_action_s_answer_does_not_refresh_and_offers_no_refresh(db):
    answer = ask(db, "GET", PREFIX + "/no-such-page?refresh=30").body
    assert 'http-equiv="refresh"' not in answer and "refresh every" not in answer


# -- a calendar's overdue -----------------------------------------------------------------------

@pytest.mark.parametrize(("overdue", "said"), [
    (HOUR, "overdue 1 hour: a call the tick would make more than 1 hour after its moment is skipped instead, "
           "recorded `overdue`, and the calendar goes on to its next moment"),
    (None, "overdue none declared: a moment missed (ticks stopped, a deploy) is called however late"),
])
def test_a_declared_calendar_s_page_states_its_overdue_rule(overdue, said):
    weekly = calendar("0 9 * * 1", "Europe/Berlin", name="weekly", overdue=overdue)
    app = App("DB", (weekly,), console={"prefix": PREFIX, "token": "CONSOLE_TOKEN"})
    db = open_store()
    ticks(db, [weekly], NINE)
    assert said in shown(ask(db, "GET", PREFIX + "/schedule?name=weekly", app=app, now=NINE + MINUTE))


def test_a_schedule_of_another_kind_states_no_overdue(db):
    assert " overdue " not in shown(ask(db, "GET", PREFIX + "/schedule?name=census"))


def test_the_bars_count_the_latest_runs_at_most_and_say_back_to_when():
    db = open_store()
    ticks(db, [every(1)], NINE)
    start = NINE - 12 * HOUR
    fill(db, runs=console_store.CHARTED + 500, start=start)  # a run a second
    page = shown(ask(db, "GET", PREFIX, now=start + (console_store.CHARTED + 500) * 1000 + MINUTE))
    assert (f"Counted among the latest {console_store.CHARTED:,} runs and skips, back to "
            f"{when(start + 501 * 1000)}: the bars before hold more.") in page
