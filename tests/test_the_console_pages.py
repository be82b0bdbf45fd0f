"""The console's pages (issue 18, "The web view"), rendered against a real SQLite store with
schedules, runs and deliveries in it: what each page shows, every value escaped, times in UTC and
in a calendar's zone, and pages of handed-over schedules read by keyset along the primary key."""

import re
from html import unescape

import pytest
from console_fixtures import (
    APRIL, BACKFILLING, FLAKY, MONTHLY, NINE, NOW, PREFIX, RETRYING, TEN, ask, filled_store, monthly_store,
    retrying_store, token_access,
)
from helpers import every, kept_from_before_0017, open_store, run, ticks

from tickwork import words
from tickwork.console.console_store import DECLARED, HANDED_OVER
from tickwork.operator_store import OperatorStore
from tickwork.per_item import Items
from tickwork.times import HOUR, MINUTE, utc


async def remember():
    pass


@pytest.fixture(scope="module")
def db():
    return filled_store()


def shown(response) -> str:
    """A page's text as a person reads it: the tags left out, the entities read."""
    assert response.status == 200, response.body
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", response.body)).split())


def test_the_overview_shows_the_last_tick_the_failing_schedules_and_deliveries_and_counts(db):
    page = shown(ask(db, "GET", PREFIX))
    assert "last tick 2026-03-02 09:05 UTC (5 min ago) ticks stopped" in page
    assert "DECLARED SCHEDULE FAILING mailer" in page
    assert "mailer 5" in page  # its failed runs in the last day
    assert "outcome_unknown 1 ConnectionError: the network went away mid-send" in page
    assert "4 declared 2 handed over 0 paused" in page


def test_the_overview_shows_the_gaps_in_the_ticks():
    db = open_store()
    from console_fixtures import SCHEDULES

    ticks(db, [SCHEDULES[0]], NINE, NINE + 30 * MINUTE)
    assert "2026-03-02 09:00 UTC (40 min ago) 2026-03-02 09:30 UTC (10 min ago) 30 min" in shown(
        ask(db, "GET", PREFIX, now=NINE + 40 * MINUTE))


def test_the_schedules_page_lists_the_declared_and_those_handed_over_with_their_next_due_time(db):
    page = shown(ask(db, "GET", f"{PREFIX}/schedules"))
    assert "Declared NAME ACTION TIMING" in page
    assert "census declared every minute 2026-03-02 09:06 UTC (4 min ago) succeeded" in page
    assert "send_statement@" in page and "console_fixtures:send_statement" in page


def test_a_calendar_s_due_time_is_shown_in_utc_and_in_its_zone(db):
    page = shown(ask(db, "GET", f"{PREFIX}/schedules?q=weekly"))
    assert "2026-03-09 08:00 UTC (in 6 d 22 h) 2026-03-09 09:00 CET (Europe/Berlin)" in page


def test_names_inputs_and_errors_are_escaped(db):
    html = ask(db, "GET", f"{PREFIX}/schedules?q=%3Cscript&in=input").body
    assert "<script>" not in html
    name = re.search(r"send_statement@[0-9a-f]+", html).group(0)
    one = ask(db, "GET", f"{PREFIX}/schedule?name={name}").body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in one and "<script>" not in one
    assert "the &lt;mail&gt; service" in ask(db, "GET", f"{PREFIX}/schedule?name=mailer").body


@pytest.mark.parametrize("query, found, not_found", [
    ("q=mail", ["mailer"], ["census", "send_statement@"]),
    ("q=*sus", ["census"], ["mailer"]),
    ("q=*send_statement&in=action", ["send_statement@"], []),
    ("q=ada&in=input", ["ada"], ["alert"]),
    ("q=Ada&in=label", ["label Ada Lovelace"], ["alert", "census"]),
])
def test_schedules_are_searched_by_name_action_label_or_input(db, query, found, not_found):
    page = shown(ask(db, "GET", f"{PREFIX}/schedules?{query}"))
    assert all(text in page for text in found) and not any(text in page for text in not_found)


def test_a_page_of_handed_over_schedules_starts_after_the_last_one_of_the_page_before():
    db = open_store()
    ids = run(Items(db, lambda: NINE).once_many(remember, [{"n": k} for k in range(120)], NINE + MINUTE)).ids
    first = ask(db, "GET", f"{PREFIX}/schedules").body
    names = re.findall(r">(remember@[0-9a-f]+)<", first)
    assert names == sorted(ids)[:50]
    after = re.search(r'href="(/ops/schedules\?[^"]*after=[^"]+)"', first).group(1)
    second = ask(db, "GET", unescape(after)).body
    assert re.findall(r">(remember@[0-9a-f]+)<", second) == sorted(ids)[50:100]
    assert "Declared" not in second


PRIMARY_KEY = "sqlite_autoindex_tickwork_schedules_1"
RANGE = ("a", "a\U0010ffff")


@pytest.mark.parametrize("sql, params, read", [
    pytest.param(HANDED_OVER[None], ("live", "x@", 51), f"SEARCH s USING INDEX {PRIMARY_KEY} (name>?)",
                 id="a page of those handed over"),
    pytest.param(HANDED_OVER["name"], ("live", "", 51, "a*", *RANGE), f"SEARCH s USING INDEX {PRIMARY_KEY} (name>? AND name<?)",
                 id="a search by name"),
    pytest.param(DECLARED[None], ("all", "", 1000), "SEARCH s USING INDEX tickwork_schedules_declared_ever (name>?)",
                 id="the declared ones, removed ones too"),
])
def test_a_page_of_schedules_is_read_through_an_index_not_the_whole_table(sql, params, read):
    plan = run(open_store().all("EXPLAIN QUERY PLAN " + sql, params))
    page = [row["detail"] for row in plan if row["parent"] == 0]  # the schedules, not each one's last run
    assert page[0] == read
    assert not any(step.startswith("SCAN") or "ORDER BY" in step for step in page)


def test_a_schedule_handed_over_shows_its_label_and_input_on_its_page(db):
    html = ask(db, "GET", f"{PREFIX}/schedules?q=Ada&in=label").body
    name = re.search(r"send_statement@[0-9a-f]+", html).group(0)
    assert 'label Ada Lovelace input {"customer":"ada"}' in shown(ask(db, "GET", f"{PREFIX}/schedule?name={name}"))


def with_records_of_both_forms():
    """census's runs at 09:15, 09:30 and 09:45 (ids of a tick's form), and tidy's three kept from
    before migration 0017 at 09:10, 09:30 and 09:50; with the records' traces, the latest tick first."""
    db = open_store()
    ticks(db, [every(15)], *(NINE + k * 15 * MINUTE for k in range(4)))
    kept_from_before_0017(db, "tidy", ("ffff" * 8, NINE + 10 * MINUTE, "failed"),
                          ("0000" * 8, NINE + 30 * MINUTE, "failed"), ("7f3a" * 8, NINE + 50 * MINUTE, "succeeded"))
    return db, [r["trace"] for r in run(db.all("SELECT trace FROM tickwork_runs ORDER BY tick_at DESC, id DESC"))]


def test_runs_across_schedules_list_records_made_before_migration_0017_and_after_in_tick_order():
    db, traces = with_records_of_both_forms()
    html = ask(db, "GET", f"{PREFIX}/runs?since=all", now=NINE + HOUR).body
    assert sorted(traces, key=html.find) == traces and all(trace in html for trace in traces)


def test_the_overview_counts_the_failed_runs_of_records_made_before_migration_0017_and_after():
    db, _ = with_records_of_both_forms()
    run(db.all("UPDATE tickwork_runs SET outcome = 'failed' WHERE schedule = 'census' AND tick_at = ?1",
               (NINE + 45 * MINUTE,)))
    page = shown(ask(db, "GET", PREFIX, now=NINE + HOUR))
    assert "3 runs succeeded in 24 h 3 runs failed in 24 h" in page
    assert "census 1 2026-03-02 09:45 UTC" in page and "tidy 2 2026-03-02 09:30 UTC" in page


def test_runs_across_schedules_show_the_label_of_a_schedule_handed_over():
    db = open_store()
    run(Items(db, lambda: NINE).every(remember, {"n": 1}, "1m", label="Grace Hopper"))
    ticks(db, [], NINE + MINUTE, NINE + 2 * MINUTE)
    assert "remember@" in (page := shown(ask(db, "GET", f"{PREFIX}/runs", now=NINE + 3 * MINUTE)))
    assert "label Grace Hopper" in page


def test_one_schedule_says_its_rule_as_why_does_and_its_next_due_times(db):
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name=census"))
    state = run(db.all("SELECT * FROM tickwork_schedules WHERE name = 'census'"))[0]
    assert f"rule every minute: {words.rule('every 60000', state, None)}" in page
    assert ("next due 2026-03-02 09:06 UTC (4 min ago) 2026-03-02 09:07 UTC (3 min ago) "
            "2026-03-02 09:08 UTC (2 min ago)") in page


def test_one_calendar_shows_its_next_due_times_in_its_zone(db):
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name=weekly"))
    assert "called at each moment of `0 9 * * 1` read in Europe/Berlin" in page
    assert "2026-03-16 08:00 UTC (in 13 d 22 h) 2026-03-16 09:00 CET (Europe/Berlin)" in page


def test_one_schedule_shows_its_history_with_outcomes_durations_traces_and_what_it_emitted(db):
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name=place"))
    trace = run(db.all("SELECT trace FROM tickwork_runs WHERE schedule = 'place'"))[0]["trace"]
    assert f"succeeded 1 event emitted (order_placed 1) {trace}" in page
    failed = shown(ask(db, "GET", f"{PREFIX}/schedule?name=mailer"))
    assert "failed (internal_fault) raised" in failed
    assert "declared src/app/domains/mail/mailer.jadpo:3" in failed


def test_one_schedule_s_history_pages_back_by_due_time(db):
    first = ask(db, "GET", f"{PREFIX}/schedule?name=census").body
    assert "older runs" not in first  # 5 runs fit a page
    rows = run(db.all("SELECT * FROM tickwork_runs WHERE schedule = 'census' ORDER BY due_at DESC"))
    before = f"{rows[1]['due_at']}:{rows[1]['tick_at']}:{rows[1]['id']}"
    older = ask(db, "GET", f"{PREFIX}/schedule?name=census&before={before}").body
    assert older.count('<span class="succeeded">') == 3  # the history's rows after the second


def test_a_schedule_no_tick_has_seen_is_not_found(db):
    assert ask(db, "GET", f"{PREFIX}/schedule?name=nobody").status == 404


@pytest.mark.parametrize("query, schedules", [
    ("outcome=failed", {"mailer"}),
    ("name=pla", {"place"}),
    ("name=*s*&outcome=succeeded", {"census"}),
])
def test_runs_across_schedules_are_listed_by_outcome_and_name_pattern(db, query, schedules):
    html = ask(db, "GET", f"{PREFIX}/runs?{query}").body
    assert set(re.findall(r'schedule\?name=([^"&]+)"', html)) == schedules


def test_runs_across_schedules_are_listed_since_a_time(db):
    assert "no runs match" in shown(ask(db, "GET", f"{PREFIX}/runs?since=1h", now=NOW + 2 * 60 * MINUTE))
    assert "census" in shown(ask(db, "GET", f"{PREFIX}/runs?since=24h", now=NOW + 2 * 60 * MINUTE))


def test_the_deliveries_page_shows_state_sends_and_the_last_error(db):
    page = shown(ask(db, "GET", f"{PREFIX}/deliveries"))
    assert "order_placed EVENTS outcome_unknown 1" in page
    assert "ConnectionError: the network went away mid-send" in page
    assert "Retry" in page and "Dismiss" in page and "Cancel" in page


def test_the_operator_log_page_lists_what_operators_did_newest_first():
    db = filled_store()
    from console_fixtures import post

    post(db, f"{PREFIX}/schedule/pause", {"name": "census"}, token_access(), headers={"authorization": "Bearer s3cret-console-token"})
    post(db, f"{PREFIX}/schedule/resume", {"name": "census"}, token_access(), now=NOW + MINUTE,
         headers={"authorization": "Bearer s3cret-console-token"})
    page = shown(ask(db, "GET", f"{PREFIX}/log", now=NOW + 2 * MINUTE))
    assert page.index("token resume census") < page.index("token pause census")


def test_every_page_forbids_framing_and_anything_from_another_origin(db):
    for path in ("", "/schedules", "/schedule?name=census", "/runs", "/deliveries", "/log", "/console.css", "/nope"):
        headers = ask(db, "GET", PREFIX + path).headers
        assert headers["content-security-policy"].startswith("default-src 'none'")
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-frame-options"] == "DENY"


def test_no_page_holds_a_script_or_an_inline_style(db):
    for path in ("", "/schedules", "/schedule?name=weekly", "/runs", "/deliveries", "/log"):
        html = ask(db, "GET", PREFIX + path).body
        assert "<script" not in html and "style=" not in html and "<style" not in html
        assert not re.search(r'(src|href)="(https?:)?//', html)


@pytest.mark.parametrize("query", [
    pytest.param("/runs?before=99999999999999999999999:x", id="a cursor past any time"),
    pytest.param("/runs?before=9007199254740993:x", id="a cursor past 2**53"),
    pytest.param("/runs?before=-5:x", id="a negative cursor"),
    pytest.param("/runs?before=1_767_600_000_000:x", id="a cursor with underscores"),
    pytest.param("/runs?before=soon", id="a cursor of words"),
    pytest.param("/log?before=12", id="a cursor without its id"),
    pytest.param("/schedule?name=census&before=1:2", id="a history cursor without its id"),
    pytest.param("/runs?outcome=exploded", id="an outcome there is none of"),
    pytest.param("/runs?since=3d", id="a period the page offers none of"),
    pytest.param("/schedules?state=asleep", id="a state there is none of"),
    pytest.param("/schedules?q=x&in=colour", id="a field that is not searched"),
    pytest.param("/runs?name=" + "a" * 50_001, id="a name pattern past SQLite's longest GLOB"),
    pytest.param("/schedules?q=" + "a*" * 25_001, id="a search past SQLite's longest GLOB"),
    pytest.param("/schedules?in=input&q=" + "a" * 50_001, id="an input search as long"),
    pytest.param("/schedules?after=" + "a" * 50_001, id="a page's bound as long"),
])
def test_a_query_value_the_console_never_writes_is_a_400_saying_which(db, query):
    answer = ask(db, "GET", PREFIX + query)

    assert answer.status == 400
    name = query.split("?")[1].split("&")[-1].split("=")[0]
    assert f"`{name}" in unescape(answer.body) and "Nothing was read" in unescape(answer.body)


def test_a_label_and_a_search_echoed_into_attributes_are_escaped():
    db = open_store()
    run(Items(db, lambda: NINE).calendar(remember, {"k": 1}, "0 9 * * 1", label='"><img src=x>'))
    typed = '"><script>x</script>'

    html = ask(db, "GET", f"{PREFIX}/schedules?q=%22%3E%3Cscript%3Ex%3C%2Fscript%3E&in=label&state=all").body
    listed = ask(db, "GET", f"{PREFIX}/schedules").body

    assert f'value="{typed.replace(chr(34), "&quot;").replace("<", "&lt;").replace(">", "&gt;")}"' in html
    assert "<script>" not in html and "<img" not in listed and "label &quot;&gt;&lt;img src=x&gt;" in listed


# -- retries, missed occurrences, backfills (issue 17, as `why` says them) ---------------------------

@pytest.fixture(scope="module")
def retrying():
    return retrying_store()


def flaky_page(db, now=TEN + 2 * MINUTE):
    return shown(ask(db, "GET", f"{PREFIX}/schedule?name=flaky", now=now, app=RETRYING))


def test_one_schedule_s_rule_says_its_retry_and_its_limit(retrying):
    assert ("missed ticks make one run, not a backlog; a failed run is tried again for its due time up to 3 times "
            "more, 1 minute after the first failure and each pause twice the one before (`retry: 3 after 1m`); a run is "
            "stopped after 2 minutes (`limit`)") in flaky_page(retrying)


def test_each_run_in_the_history_shows_its_attempt_of_the_attempts_a_due_time_gets(retrying):
    page = flaky_page(retrying)
    assert "failed (internal_fault) attempt 2 of 4" in page
    assert "failed (internal_fault) attempt 1 of 4" in page


def test_the_last_run_says_its_attempt_and_when_the_next_attempt_is(retrying):
    page = flaky_page(retrying)
    assert "last run attempt 2 of 4, ran and failed: internal_fault (raised)" in page
    assert "; next attempt at 2026-03-02 10:03 UTC" in page


def test_a_pending_retry_is_the_next_due_time_and_says_what_supersedes_it_as_why_does(retrying):
    page = flaky_page(retrying)
    state = run(retrying.all("SELECT * FROM tickwork_schedules WHERE name = 'flaky'"))[0]
    assert f"why then {words.retry_words(state, 4, {'retry_attempts': 3, 'retry_pause_ms': MINUTE})}" in page
    assert ("attempt 3 of 4 for 2026-03-02 10:00 UTC (retry 2 of 3 after 2m), unless the next due time, "
            "2026-03-02 11:00 UTC") in page
    assert ("next due 2026-03-02 10:03 UTC (in 1 min) 2026-03-02 11:00 UTC (in 58 min) "
            "2026-03-02 12:00 UTC") in page  # the due times go on from the one the retry put aside


def test_a_retry_the_next_due_time_superseded_is_a_skip_that_says_so():
    db = open_store()
    ticks(db, [FLAKY], NINE, TEN, TEN + MINUTE, TEN + 60 * MINUTE)
    page = flaky_page(db, TEN + 61 * MINUTE)
    assert ("skipped (superseded) attempt 3 of 4 the next due time came before this attempt, and superseded it "
            "(the next due time, 2026-03-02T11:00:00.000Z, came before attempt 3") in page


def backfilling_page(db, path="/schedule?name=statement", now=APRIL + MINUTE):
    """A page of the backfilling app (its monthly statement's by default), asked for at `now`."""
    return ask(db, "GET", f"{PREFIX}{path}", now=now, app=BACKFILLING)


def backfilled_by_ana():
    """The monthly statement's February backfilled by ana, and made by April's first tick."""
    db = monthly_store()
    run(OperatorStore(db).backfill("statement", utc("2026-02-01 00:00"), utc("2026-02-01 00:00"), "ana", APRIL))
    ticks(db, [MONTHLY], APRIL + MINUTE)
    return db


def test_a_run_for_several_missed_occurrences_says_how_many_first_to_last():
    page = shown(backfilling_page(monthly_store()))
    assert ("3 occurrences missed, 2026-02-01 00:00 UTC to 2026-04-01 00:00 UTC; this run is for the latest"
            in page)


def test_the_backfill_form_is_filled_with_the_occurrences_the_last_run_missed():
    body = backfilling_page(monthly_store()).body
    assert 'name="from" value="2026-02-01T00:00:00Z"' in body
    assert 'name="to" value="2026-04-01T00:00:00Z"' in body


def test_a_backfilled_run_says_who_asked_for_it():
    page = shown(backfilling_page(backfilled_by_ana(), now=APRIL + 2 * MINUTE))
    assert "succeeded at 2026-02-01 00:00 UTC backfill by ana" in page, "as `tickwork history` says it"
    assert "Backfills" in page and " ana 2026-02-01 00:00 UTC" in page and " done 1 " in page


def test_a_backfill_ended_for_want_of_its_schedule_says_why_as_tickwork_backfills_does():
    db = monthly_store()
    run(OperatorStore(db).backfill("statement", utc("2026-02-01 00:00"), utc("2026-02-01 00:00"), "ana", APRIL))
    run(db.all("UPDATE tickwork_backfills SET state = 'ended', ended_at = ?1", (APRIL,)))  # as the tick ends one
    page = shown(backfilling_page(db, now=APRIL + 2 * MINUTE))
    assert " ended: its schedule is gone 0 " in page


def test_runs_across_schedules_show_a_retry_s_attempt(retrying):
    page = shown(ask(retrying, "GET", f"{PREFIX}/runs", now=TEN + 2 * MINUTE, app=RETRYING))
    assert "failed (internal_fault) attempt 2 " in page


def test_runs_across_schedules_show_who_asked_for_a_backfill_and_the_occurrences_a_run_covered():
    page = shown(backfilling_page(backfilled_by_ana(), "/runs", now=APRIL + 2 * MINUTE))
    assert "succeeded backfill by ana at 2026-02-01 00:00 UTC" in page
    assert "succeeded 3 occurrences missed, 2026-02-01 00:00 UTC to 2026-04-01 00:00 UTC" in page


REVERSING = "\u202egnitset\u202c \u202a\u202b\u202d\u2066\u2067\u2068\u2069\u200e\u200f"  # every bidi control


async def reversing():
    raise RuntimeError(f"the service said {REVERSING}")


def test_the_bidirectional_controls_in_errors_and_inputs_are_shown_as_their_escapes():
    db = open_store()
    run(Items(db, lambda: NINE).calendar(remember, {"note": REVERSING}, "0 9 * * 1"))
    ticks(db, [every(1, "reversed", reversing)], NINE, NINE + MINUTE, NINE + 2 * MINUTE)

    pages = [ask(db, "GET", PREFIX + path, now=NINE + 3 * MINUTE).body for path in (
        "", "/runs", "/schedule?name=reversed", "/schedules?in=input&q=note", "/schedules?state=all")]

    assert not [page for page in pages if re.search("[\u202a-\u202e\u2066-\u2069\u200e\u200f]", page)]
    assert "\\u202egnitset\\u202c" in pages[1] and "\\u202egnitset\\u202c" in pages[2]


def test_a_one_off_item_done_with_a_failed_call_has_the_backfill_form_on_its_page():
    from test_backfill import remind_failing_first

    from tickwork.per_item import Items

    db = open_store()
    nine = utc("2026-03-02 09:00")
    id = run(Items(db, lambda: nine).once(remind_failing_first, {"todo": 1}, nine + MINUTE))
    ticks(db, [], nine + MINUTE)
    body = backfilling_page(db, f"/schedule?name={id}", now=nine + 2 * MINUTE).body
    assert "Ask for the backfill" in body
