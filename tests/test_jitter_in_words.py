"""Issue 25, "Jitter", in words: `tickwork why` says a due time with the moment it runs (`09:00
... runs at 09:02:55 UTC (jitter 5m)`), `history` says what DUE and STARTED are of a jittered
schedule, and the console's schedule page says the same as `why`."""

from console_fixtures import PREFIX, ask
from helpers import Calls, open_store, ticks
from test_jitter import JITTER, NINE, hourly, minutes_of_the_window
from test_the_console_pages import shown

from tickwork.model import due_jitter
from tickwork.operating.words import when
from tickwork.times import MINUTE


def runs_at_words(due=NINE):
    return f"runs at {when(due + due_jitter('census', due, JITTER)).partition(' ')[2]} (jitter 5m)"


def test_why_says_the_nominal_due_time_and_the_moment_it_runs(app):
    app.tick([hourly()], NINE - 60 * MINUTE)
    _, answer, _ = app.run("why", "census", now=NINE - 10 * MINUTE)
    assert answer["next_due"]["utc"] == "2026-03-02T09:00:00.000Z"
    assert answer["next_due_why"].startswith(f"2026-03-02 09:00 UTC (in 10 min), {runs_at_words()}: ")
    assert answer["runs_at"]["ms"] == NINE + due_jitter("census", NINE, JITTER)
    _, plain, _ = app.run("why", "census", now=NINE - 10 * MINUTE, json_=False)
    assert runs_at_words() in plain


def test_why_without_a_jitter_says_the_due_time_alone(app):
    app.tick([hourly(jitter=None)], NINE - 60 * MINUTE)
    _, answer, _ = app.run("why", "census", now=NINE - 10 * MINUTE)
    assert "runs at" not in answer["next_due_why"] and answer["runs_at"] is None


def test_history_keeps_the_nominal_due_time_and_says_when_each_ran(app):
    action = Calls()
    app.tick([hourly(action)], NINE - 60 * MINUTE, *minutes_of_the_window(NINE))
    _, text, _ = app.run("history", "census", now=NINE + 10 * MINUTE, json_=False)
    assert "jitter 5m: each due time runs at an offset under 5m after it" in text
    _, answer, _ = app.run("history", "census", now=NINE + 10 * MINUTE)
    [ran] = answer["runs"]
    assert ran["due"]["ms"] == NINE and ran["started"]["ms"] == action.at[0] > NINE


def test_the_console_schedule_page_says_when_the_next_due_time_runs():
    db = open_store()
    ticks(db, [hourly()], NINE - 60 * MINUTE)
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name=census", now=NINE - 10 * MINUTE))
    assert f"jitter due 2026-03-02 09:00 UTC, {runs_at_words()}" in page


def test_schedules_and_why_say_the_timing_and_the_rule_with_the_jitter(app):
    app.tick([hourly()], NINE - 60 * MINUTE)
    _, listed, _ = app.run("schedules", now=NINE - 10 * MINUTE, json_=False)
    assert "every hour, jitter 5 minutes" in listed
    _, answer, _ = app.run("why", "census", now=NINE - 10 * MINUTE)
    assert answer["rule"].endswith("; each due time runs an offset under 5 minutes after it, drawn from the schedule "
                                   "and the due time (jitter)")


def test_why_inside_the_window_before_the_offset_says_when_it_runs_not_that_the_next_tick_makes_it(app):
    offset = due_jitter("census", NINE, JITTER)
    assert offset > MINUTE
    app.tick([hourly()], NINE - 60 * MINUTE, NINE)  # the tick at 09:00 finds it not yet due
    _, answer, _ = app.run("why", "census", now=NINE + MINUTE // 2)
    assert "due now" not in answer["next_due_why"]
    assert "the first tick at or after" in answer["next_due_why"]
    _, answer, _ = app.run("why", "census", now=NINE + offset)
    assert answer["next_due_why"].endswith("; due now: the next tick makes it")
