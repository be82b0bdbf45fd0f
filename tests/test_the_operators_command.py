"""The operator's command, `tickwork VERB`, against SQLite files whose state real ticks made.

Issue "Operating tickwork": schedules, history, why, pause, resume, run, deliveries, retry,
dismiss, cancel and status, each with --json; every change logged in its own batch.
"""

import asyncio
import json
import os
import sqlite3

import pytest
from helpers import Blocking, calendar, every, lose_a_run, lost_run, pulse, run, tick_at
from harness import FakeQueue
from test_the_outbox import outbox, placing

from tickwork.operator_store import OperatorStore
from tickwork.outbox_store import OutboxStore, Sent
from tickwork.schedule_store import ScheduleStore
from tickwork.times import HOUR, MINUTE, utc
from tickwork_cli.cli import main
from tickwork_cli.wrangler_d1 import WranglerD1, WranglerError, inline, literal

NINE = utc("2026-03-02 09:00")


def by_name(answer):
    return {item["name"]: item for item in answer["schedules"]}


# -- schedules ---------------------------------------------------------------------------------

def test_schedules_says_each_kind_and_timing_in_words_with_the_next_due_time_in_utc_and_relative(app):
    app.tick([every(15), calendar("0 9 * * 1", "Europe/Berlin", name="weekly"), pulse(HOUR, 12)], NINE)
    code, answer, _ = app.run("schedules", now=NINE + 11 * MINUTE)
    found = by_name(answer)
    assert code == 0
    assert {name: (s["kind"], s["timing"]) for name, s in found.items()} == {
        "census": ("every", "every 15 minutes"),
        "weekly": ("calendar", "0 9 * * 1 in Europe/Berlin"),
        "sweep": ("pulse", "pulse: 12 shares of 1 hour"),
    }
    assert found["census"]["next_due"] == {"ms": utc("2026-03-02 09:15"), "utc": "2026-03-02T09:15:00.000Z",
                                           "relative": "in 4 min"}
    assert found["weekly"]["next_due"]["utc"] == "2026-03-09T08:00:00.000Z"


def test_schedules_says_a_calendar_whose_days_vixie_cron_reads_otherwise_as_written(app):
    app.tick([calendar("0 9 */2 * 1", name="weekly")], NINE)
    code, answer, _ = app.run("schedules", now=NINE + MINUTE)
    assert (code, by_name(answer)["weekly"]["timing"]) == (0, "0 9 */2 * 1 in UTC")


def test_schedules_in_words_reads_as_a_table_with_the_last_tick(app):
    app.tick([every(15)], NINE, NINE + 15 * MINUTE)
    code, text, _ = app.run("schedules", now=NINE + 19 * MINUTE, json_=False)
    assert code == 0
    assert "last tick 2026-03-02 09:15 UTC (4 min ago)" in text
    line = next(line for line in text.splitlines() if "census" in line)
    assert "every 15 minutes" in line and "2026-03-02 09:30 UTC (in 11 min)" in line and "succeeded 4 min ago" in line


def test_schedules_shows_the_last_runs_outcome_and_age_paused_and_a_running_run_with_its_lease(app):
    app.tick([every(15), every(15, name="tidy")], NINE, NINE + 15 * MINUTE)
    lose_a_run(app.db, "tidy", NINE + 30 * MINUTE, NINE + 45 * MINUTE, until=NINE + 46 * MINUTE)
    app.run("pause", "census", now=NINE + 20 * MINUTE)
    code, answer, _ = app.run("schedules", now=NINE + 31 * MINUTE)
    census, tidy = by_name(answer)["census"], by_name(answer)["tidy"]
    assert census["last_run"]["outcome"] == "succeeded" and census["last_run"]["tick"]["relative"] == "16 min ago"
    assert census["paused"] is True and census["running"] is None
    assert tidy["running"]["run"] == lost_run(NINE + 30 * MINUTE)
    assert tidy["running"]["until"]["relative"] == "in 15 min" and tidy["running"]["expired"] is False


def test_schedules_running_are_those_whose_run_goes_on_not_those_whose_last_run_ended(app):
    app.tick([every(15), every(15, name="tidy")], NINE, NINE + 15 * MINUTE)  # both ran, their leases kept
    lose_a_run(app.db, "tidy", NINE + 30 * MINUTE, NINE + 45 * MINUTE, until=NINE + 46 * MINUTE)
    code, answer, _ = app.run("schedules", "--state", "running", now=NINE + 31 * MINUTE)
    assert (code, sorted(by_name(answer))) == (0, ["tidy"])


def test_schedules_lists_those_handed_over_apart_and_marks_removed_ones(app):
    app.tick([every(15), every(60, name="tidy")], NINE)
    app.tick([every(15)], NINE + MINUTE)  # a deploy removed tidy
    run(ScheduleStore(app.db).hand_over(
        "remind@abc", "app.domains.planning:remind", json.dumps({"kind": "once", "at_ms": NINE + HOUR}),
        "{}", f"once {NINE + HOUR}", 0, NINE + HOUR, None, NINE))
    code, answer, _ = app.run("schedules", now=NINE + 2 * MINUTE)
    found = by_name(answer)
    assert found["remind@abc"]["handed_over"] and found["remind@abc"]["timing"] == "once at 2026-03-02 10:00 UTC"
    assert found["tidy"]["removed"]["ms"] == NINE + MINUTE and found["tidy"]["next_due"] is None
    code, text, _ = app.run("schedules", now=NINE + 2 * MINUTE, json_=False)
    assert "Handed over at run time:" in text
    assert "removed 1 min ago" in next(line for line in text.splitlines() if "tidy" in line)


def test_schedules_filters_by_name_kind_and_state(app):
    app.tick([every(15), every(60, name="tidy"), pulse(HOUR, 12)], NINE)
    app.run("pause", "tidy", now=NINE)
    assert list(by_name(app.run("schedules", "--name", "t*", now=NINE)[1])) == ["tidy"]
    assert list(by_name(app.run("schedules", "--kind", "pulse", now=NINE)[1])) == ["sweep"]
    assert list(by_name(app.run("schedules", "--kind", "schedule", now=NINE)[1])) == ["census", "tidy"]
    assert list(by_name(app.run("schedules", "--state", "paused", now=NINE)[1])) == ["tidy"]


# -- history -----------------------------------------------------------------------------------

def failing(name="census"):
    async def fail():
        raise RuntimeError("the database of orders is down")

    return every(15, name=name, action=fail)


def test_history_is_newest_first_with_due_start_duration_outcome_code_kind_and_detail(app):
    app.tick([failing()], NINE, NINE + 15 * MINUTE, NINE + 30 * MINUTE)
    code, answer, _ = app.run("history", "census", now=NINE + 31 * MINUTE)
    assert code == 0
    assert [r["due"]["utc"] for r in answer["runs"]] == ["2026-03-02T09:30:00.000Z", "2026-03-02T09:15:00.000Z"]
    newest = answer["runs"][0]
    assert (newest["outcome"], newest["code"], newest["kind"]) == ("failed", "internal_fault", "raised")
    assert "the database of orders is down" in newest["detail"]
    assert newest["started"]["ms"] == NINE + 30 * MINUTE and newest["took_ms"] == 0


def test_history_shows_a_calendars_moment_and_dst_rule_and_a_pulses_share(app):
    app.tick([calendar("30 2 * * *", "Europe/Berlin", name="nightly", repeated="both"), pulse(HOUR, 12)],
             utc("2026-10-24 12:00"), utc("2026-10-25 00:31"), utc("2026-10-25 01:31"))
    _, nightly, _ = app.run("history", "nightly", now=utc("2026-10-25 02:00"))
    assert [(r["at"]["utc"], r["dst"]) for r in nightly["runs"]] == [
        ("2026-10-25T01:30:00.000Z", "repeated_second"), ("2026-10-25T00:30:00.000Z", "repeated_first")]
    _, sweep, _ = app.run("history", "sweep", now=utc("2026-10-25 02:00"))
    assert [(r["i"], r["n"]) for r in sweep["runs"]] == [(6, 12), (6, 12)]
    _, text, _ = app.run("history", "nightly", now=utc("2026-10-25 02:00"), json_=False)
    assert "at 2026-10-25 01:30 UTC (repeated_second)" in text


def test_history_failed_since_and_limit_choose_the_runs(app):
    app.tick([every(15)], NINE, NINE + 15 * MINUTE, NINE + 30 * MINUTE)
    app.tick([failing()], NINE + 45 * MINUTE)
    app.tick([every(15)], NINE + 60 * MINUTE)
    now = NINE + 61 * MINUTE
    _, failed, _ = app.run("history", "census", "--failed", now=now)
    assert [r["due"]["utc"] for r in failed["runs"]] == ["2026-03-02T09:45:00.000Z"]
    _, since, _ = app.run("history", "census", "--since", "20m", now=now)
    assert [r["due"]["utc"] for r in since["runs"]] == ["2026-03-02T10:00:00.000Z", "2026-03-02T09:45:00.000Z"]
    _, since, _ = app.run("history", "census", "--since", "2026-03-02T09:30Z", now=now)
    assert len(since["runs"]) == 3
    _, limited, _ = app.run("history", "census", "--limit", "1", now=now)
    assert [r["due"]["utc"] for r in limited["runs"]] == ["2026-03-02T10:00:00.000Z"]


def test_history_shows_the_operator_log_of_the_schedule(app):
    app.tick([every(15)], NINE)
    app.run("pause", "census", "--who", "alice", now=NINE + MINUTE)
    app.run("resume", "census", "--who", "bob", now=NINE + 2 * MINUTE)
    _, answer, _ = app.run("history", "census", now=NINE + 3 * MINUTE)
    assert [(e["who"], e["verb"]) for e in answer["operator_log"]] == [("bob", "resume"), ("alice", "pause")]
    _, text, _ = app.run("history", "census", now=NINE + 3 * MINUTE, json_=False)
    assert "2026-03-02 09:01 UTC  alice pause" in text


def test_history_of_an_unknown_name_is_one_clear_line(app):
    app.tick([every(15)], NINE)
    code, answer, err = app.run("history", "cencus", now=NINE)
    assert (code, answer) == (1, "")
    assert err == "tickwork history: no schedule named `cencus`: `tickwork schedules` lists them\n"


# -- why ---------------------------------------------------------------------------------------

CENSUS_ENTRY = {"kind": "schedule", "name": "census", "source": "src/app/domains/planning/schedules/census.jadpo:3",
                "every_ms": 15 * MINUTE}


def test_why_says_where_the_schedule_is_declared_from_the_builds_manifest(app):
    app.tick([every(15)], NINE)
    app.manifest(CENSUS_ENTRY)
    _, answer, _ = app.run("why", "census", now=NINE)
    assert answer["declared"] == "src/app/domains/planning/schedules/census.jadpo:3"
    assert answer["rule"].startswith("every 15 minutes: runs fall on a grid counted in UTC from the first tick")


def test_why_without_a_manifest_says_the_place_is_unknown_and_handed_over_ones_say_so(app):
    app.tick([every(15)], NINE)
    run(ScheduleStore(app.db).hand_over(
        "remind@abc", "app.domains.planning:remind", json.dumps({"kind": "once", "at_ms": NINE + HOUR}),
        "{}", f"once {NINE + HOUR}", 0, NINE + HOUR, None, NINE))
    assert app.run("why", "census", now=NINE)[1]["declared"] == (
        "unknown: the project has no build/app/tickwork_manifest.py (tickwork build writes it)"), (
        "the command's own form, which every Worker has, not this repo's make target")
    assert app.run("why", "remind@abc", now=NINE)[1]["declared"] == (
        "handed over at run time: calls app.domains.planning:remind")


def test_why_a_declared_schedule_no_tick_has_seen_yet(app):
    app.tick([every(15)], NINE)
    app.manifest(CENSUS_ENTRY, {**CENSUS_ENTRY, "name": "fresh", "source": "src/app/x.py:9"})
    code, answer, _ = app.run("why", "fresh", now=NINE)
    assert code == 0 and answer["declared"] == "src/app/x.py:9"
    assert answer["last_due_what"].startswith("never seen by a tick yet")


def test_why_the_next_due_time_and_what_the_last_due_time_came_to(app):
    app.tick([every(15)], NINE, NINE + 15 * MINUTE)
    _, answer, _ = app.run("why", "census", now=NINE + 16 * MINUTE)
    assert answer["next_due"]["utc"] == "2026-03-02T09:30:00.000Z"
    assert "the first grid time after the last tick" in answer["next_due_why"]
    assert answer["last_due"]["utc"] == "2026-03-02T09:15:00.000Z"
    assert answer["last_due_what"].startswith("ran: succeeded")


def test_why_a_skip_says_its_reason_paused_or_running(app):
    slow = Blocking()
    both = [every(5, action=slow), every(5, name="tidy")]
    app.tick(both, NINE)
    app.run("pause", "tidy", now=NINE)

    async def overlap():
        blocked = asyncio.create_task(tick_at(app.db, both, NINE + 5 * MINUTE))
        while not slow.made:
            await asyncio.sleep(0)
        await tick_at(app.db, both, NINE + 10 * MINUTE)
        slow.release.set()
        await blocked

    run(overlap())
    assert app.run("why", "census", now=NINE + 11 * MINUTE)[1]["last_due_what"].startswith(
        "skipped: the run before it still held the lease")
    tidy = app.run("why", "tidy", now=NINE + 11 * MINUTE)[1]
    assert tidy["last_due_what"].startswith("skipped: the schedule was paused")
    assert any(note.startswith("paused:") for note in tidy["notes"])


def test_why_a_due_time_not_reached_because_ticks_stopped(app):
    app.tick([every(15)], NINE, NINE + 15 * MINUTE)
    _, answer, _ = app.run("why", "census", now=NINE + 50 * MINUTE)
    assert answer["last_due"]["utc"] == "2026-03-02T09:30:00.000Z"
    assert answer["last_due_what"].startswith(
        "not reached because ticks stopped: the last tick was 2026-03-02 09:15 UTC (35 min ago)")
    assert "not reached: ticks stopped" in answer["next_due_why"]


def test_why_a_run_made_late_after_a_gap_names_the_gap(app):
    app.tick([every(15)], NINE, NINE + 15 * MINUTE, NINE + 52 * MINUTE)
    app.rows("INSERT OR IGNORE INTO tickwork_gaps (to_tick, from_tick, recorded_at) VALUES (?1, ?2, ?1)",
             NINE + 52 * MINUTE, NINE + 15 * MINUTE)
    _, answer, _ = app.run("why", "census", now=NINE + 53 * MINUTE)
    assert answer["last_due"]["utc"] == "2026-03-02T09:30:00.000Z"
    assert "late by 22 min: ticks had stopped (no tick from 2026-03-02 09:15 UTC to 2026-03-02 09:52 UTC" in (
        answer["last_due_what"])


def test_why_a_run_made_on_time_by_the_tick_that_ended_a_gap_is_not_called_late(app):
    app.tick([every(15)], NINE, NINE + 15 * MINUTE, NINE + 30 * MINUTE)
    app.rows("INSERT OR IGNORE INTO tickwork_gaps (to_tick, from_tick, recorded_at) VALUES (?1, ?2, ?1)",
             NINE + 30 * MINUTE, NINE + 15 * MINUTE)
    _, answer, _ = app.run("why", "census", now=NINE + 31 * MINUTE)
    assert answer["last_due"]["utc"] == "2026-03-02T09:30:00.000Z"
    assert "late" not in answer["last_due_what"]


def test_why_of_an_unknown_name_is_one_clear_line(app):
    code, _, err = app.run("why", "nope", now=NINE)
    assert code == 1 and err.count("\n") == 1 and "no schedule named `nope`" in err


NOT_UTF_8 = os.fsdecode(b"\xff")  # a byte no UTF-8 text holds, as Python hands it over in argv


@pytest.mark.parametrize("argv", [
    ("why", NOT_UTF_8), ("history", NOT_UTF_8), ("pause", NOT_UTF_8), ("history", "--name", NOT_UTF_8),
    ("backfill", NOT_UTF_8, "--from", "2026-03-01T00:00Z", "--to", "2026-03-02T00:00Z"),
    ("resume", "census", "--who", NOT_UTF_8),
], ids=["why", "history", "pause", "history --name", "backfill", "--who"])
def test_an_argument_that_is_not_utf_8_is_one_clear_line(app, argv):
    app.tick([every(15)], NINE)
    code, _, err = app.run(*argv, now=NINE + MINUTE, json_=False)
    assert code == 1 and err.count("\n") == 1
    assert err == f"tickwork {argv[0]}: `\\xff` is not UTF-8 text, as every name and id in the app's D1 is\n"
    assert app.rows("SELECT * FROM tickwork_operator_log") == []


# -- pause, resume, run ------------------------------------------------------------------------

def log_rows(app):
    return app.rows("SELECT who, verb, schedule, delivery, detail, at FROM tickwork_operator_log ORDER BY at")


def test_pause_is_logged_with_the_change_and_the_next_due_tick_skips_it_keeping_the_grid(app):
    app.tick([every(15)], NINE)
    code, answer, _ = app.run("pause", "census", "--who", "alice", now=NINE + MINUTE)
    assert (code, answer["changed"], answer["paused"]) == (0, True, True)
    assert log_rows(app) == [
        {"who": "alice", "verb": "pause", "schedule": "census", "delivery": None, "detail": None, "at": NINE + MINUTE}]
    app.tick([every(15)], NINE + 16 * MINUTE)
    [skip] = app.rows("SELECT outcome, code, due_at FROM tickwork_runs")
    assert skip == {"outcome": "skipped", "code": "paused", "due_at": NINE + 15 * MINUTE}
    code, answer, _ = app.run("resume", "census", "--who", "alice", now=NINE + 17 * MINUTE)
    assert (answer["changed"], answer["next_due"]["utc"]) == (True, "2026-03-02T09:30:00.000Z")
    app.tick([every(15)], NINE + 30 * MINUTE)
    assert app.rows("SELECT outcome FROM tickwork_runs ORDER BY due_at DESC LIMIT 1") == [{"outcome": "succeeded"}]


def test_pausing_a_paused_schedule_changes_nothing_and_logs_nothing(app):
    app.tick([every(15)], NINE)
    app.run("pause", "census", now=NINE)
    code, answer, _ = app.run("pause", "census", now=NINE + MINUTE)
    assert (code, answer["changed"]) == (0, False)
    code, text, _ = app.run("resume", "census", now=NINE + MINUTE, json_=False)
    assert text.startswith("resumed census")
    code, text, _ = app.run("resume", "census", now=NINE + MINUTE, json_=False)
    assert text.startswith("census is already running on its timing; nothing changed")
    assert [row["verb"] for row in log_rows(app)] == ["pause", "resume"]


def test_a_change_writes_its_log_row_in_the_same_batch(app):
    app.tick([every(15)], NINE)
    trips = app.db.round_trips
    change = run(OperatorStore(app.db).change("pause", "census", "alice", NINE))
    assert change.changed and app.db.round_trips == trips + 1


def test_who_defaults_to_the_os_user(app, monkeypatch):
    monkeypatch.setattr("getpass.getuser", lambda: "ops-user")
    app.tick([every(15)], NINE)
    app.run("pause", "census", now=NINE)
    assert log_rows(app)[0]["who"] == "ops-user"


def test_run_asks_the_next_tick_for_a_run_by_hand_and_is_logged(app):
    app.tick([every(15)], NINE)
    code, answer, _ = app.run("run", "census", "--who", "alice", now=NINE + 2 * MINUTE)
    assert code == 0 and answer["run_requested"]["by"] == "alice"
    assert app.rows("SELECT run_requested_at, run_requested_by, due_at FROM tickwork_schedules") == [
        {"run_requested_at": NINE + 2 * MINUTE, "run_requested_by": "alice", "due_at": NINE + 15 * MINUTE}]
    assert [row["verb"] for row in log_rows(app)] == ["run"]
    _, answer, _ = app.run("schedules", now=NINE + 3 * MINUTE)
    assert by_name(answer)["census"]["run_requested"]["by"] == "alice"


def test_run_of_an_unknown_name_is_refused_and_changes_nothing(app):
    app.tick([every(15)], NINE)
    code, _, err = app.run("run", "cencus", now=NINE)
    assert code == 1 and err == "tickwork run: no schedule named `cencus`: `tickwork schedules` lists them\n"
    assert log_rows(app) == []


def test_run_of_a_removed_or_paused_schedule_is_refused_and_changes_nothing(app):
    app.tick([every(15), every(60, name="tidy")], NINE)
    app.tick([every(15)], NINE + MINUTE)
    code, _, err = app.run("run", "tidy", now=NINE + 2 * MINUTE)
    assert code == 1 and "`tidy` is no longer declared since 2026-03-02 09:01 UTC" in err
    app.run("pause", "census", now=NINE + 2 * MINUTE)
    code, _, err = app.run("run", "census", now=NINE + 2 * MINUTE)
    assert code == 1 and "paused" in err
    assert [row["verb"] for row in log_rows(app)] == ["pause"]
    assert app.rows("SELECT COUNT(*) AS n FROM tickwork_schedules WHERE run_requested_at IS NOT NULL") == [{"n": 0}]


# -- deliveries --------------------------------------------------------------------------------

def emitted(app, *states):
    """One delivery of `order_placed` in each of `states`, in order: one run emits them all to a
    queue the app consumes (each `running` on its consumer), then the outbox's store records
    what became of each, as a send or a consumer would."""
    place = placing(*({"order": k} for k in range(len(states))))
    app.tick([place], NINE - MINUTE, NINE, outbox=outbox(app.db, FakeQueue(), consumed_here=True, at=NINE))
    rows = app.rows("SELECT d.id, d.lease_run FROM tickwork_deliveries AS d JOIN tickwork_events AS e "
                    "ON e.id = d.event ORDER BY json_extract(e.body, '$.order')")
    store = OutboxStore(app.db)
    for row, state in zip(rows, states, strict=True):
        if state == "failed":
            run(store.raised(row["id"], "RuntimeError: the shop is down", NINE, True, NINE))
        elif state in ("pending", "outcome_unknown"):
            error = "ConnectionError: the network went away mid-send" if state == "outcome_unknown" else None
            run(store.sent([Sent(row["id"], row["lease_run"], state, next_attempt=NINE + HOUR, error=error)], NINE))
    return [row["id"] for row in rows]


def test_deliveries_lists_pending_failed_and_outcome_unknown_with_event_body_and_last_error(app):
    pending, failed, unknown, running = emitted(app, "pending", "failed", "outcome_unknown", "running")
    code, answer, _ = app.run("deliveries", now=NINE + 4 * HOUR)
    found = {d["id"]: d for d in answer["deliveries"]}
    assert set(found) == {pending, failed, unknown}
    assert (found[failed]["state"], found[failed]["event_name"], found[failed]["body"]) == (
        "failed", "order_placed", '{"order":1}')
    assert found[failed]["last_error"] == "RuntimeError: the shop is down"
    assert "the network went away" in found[unknown]["last_error"]
    assert {d["id"] for d in app.run("deliveries", "--all", now=NINE)[1]["deliveries"]} == {
        pending, failed, unknown, running}


def test_retry_sends_a_failed_delivery_again_now_and_is_logged(app):
    [failed] = emitted(app, "failed")
    code, answer, _ = app.run("retry", failed, "--who", "alice", now=NINE + HOUR)
    assert (code, answer["state"]) == (0, "pending")
    assert app.rows("SELECT state, next_attempt_at FROM tickwork_deliveries") == [
        {"state": "pending", "next_attempt_at": NINE + HOUR}]
    assert [(r["verb"], r["delivery"], r["detail"]) for r in log_rows(app)] == [("retry", failed, "from failed")]
    _, answer, _ = app.run("deliveries", now=NINE + HOUR)
    assert [(e["who"], e["verb"]) for e in answer["deliveries"][0]["operator_log"]] == [("alice", "retry")]


def test_dismiss_and_cancel_set_a_delivery_aside_from_the_states_where_that_makes_sense(app):
    failed, pending, unknown = emitted(app, "failed", "pending", "outcome_unknown")
    assert app.run("dismiss", failed, now=NINE)[0] == 0
    assert app.run("cancel", pending, now=NINE)[0] == 0
    assert app.run("dismiss", unknown, now=NINE)[0] == 0
    assert {r["id"]: r["state"] for r in app.rows("SELECT id, state FROM tickwork_deliveries")} == {
        failed: "dismissed", pending: "cancelled", unknown: "dismissed"}
    assert [r["verb"] for r in log_rows(app)] == ["dismiss", "cancel", "dismiss"]


def test_a_delivery_change_from_the_wrong_state_is_refused_and_changes_nothing(app):
    running, pending = emitted(app, "running", "pending")
    code, _, err = app.run("retry", running, now=NINE)
    assert code == 1 and err == (f"tickwork retry: delivery `{running}` is running: only a failed, outcome_unknown "
                                 f"or pending delivery can be retried\n")
    code, _, err = app.run("dismiss", pending, now=NINE)
    assert code == 1 and "only a failed or outcome_unknown delivery can be dismissed" in err
    app.run("cancel", pending, now=NINE)
    code, _, err = app.run("retry", pending, now=NINE)
    assert code == 1 and f"delivery `{pending}` is cancelled" in err
    code, _, err = app.run("cancel", "no-such-delivery", now=NINE)
    assert code == 1 and "no delivery `no-such-delivery`" in err
    assert [r["verb"] for r in log_rows(app)] == ["cancel"]


# -- status ------------------------------------------------------------------------------------

def test_status_says_the_last_tick_and_its_age_and_exits_zero_while_ticking(app):
    app.tick([every(15)], NINE)
    code, text, _ = app.run("status", now=NINE + 2 * MINUTE, json_=False)
    assert (code, text) == (0, "ticking: the last tick was 2026-03-02 09:00 UTC (2 min ago)\n")


def test_status_exits_non_zero_and_says_so_when_the_last_tick_is_older_than_the_threshold(app):
    app.tick([every(15)], NINE)
    code, text, _ = app.run("status", now=NINE + 4 * MINUTE, json_=False)
    assert code == 1
    assert text.startswith("TICKS STOPPED: the last tick was 2026-03-02 09:00 UTC, 4 min ago, over the threshold of 3 min")
    code, answer, _ = app.run("status", "--threshold", "5m", now=NINE + 4 * MINUTE)
    assert (code, answer["stopped"], answer["age_ms"]) == (0, False, 4 * MINUTE)


def test_status_without_any_tick_is_stopped(app):
    code, text, _ = app.run("status", now=NINE, json_=False)
    assert code == 1 and "no tick has been recorded yet" in text


def test_status_lists_the_recorded_gaps(app):
    app.tick([every(15)], NINE, NINE + 20 * MINUTE)
    app.rows("INSERT OR IGNORE INTO tickwork_gaps (to_tick, from_tick, recorded_at) VALUES (?1, ?2, ?1)",
             NINE + 20 * MINUTE, NINE)
    code, answer, _ = app.run("status", now=NINE + 21 * MINUTE)
    assert [(g["from"]["utc"], g["to"]["utc"]) for g in answer["gaps"]] == [
        ("2026-03-02T09:00:00.000Z", "2026-03-02T09:20:00.000Z")]
    _, text, _ = app.run("status", now=NINE + 21 * MINUTE, json_=False)
    assert "no tick from 2026-03-02 09:00 UTC to 2026-03-02 09:20 UTC (20 min)" in text


# -- errors ------------------------------------------------------------------------------------

def test_a_database_without_tickworks_tables_is_one_clear_line(tmp_path, capsys):
    empty = tmp_path / "empty.sqlite"
    sqlite3.connect(empty).close()
    for verb in (["schedules"], ["pause", "census"], ["status"]):
        assert main([*verb, "--sqlite", str(empty)], now=NINE) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "the database has no tickwork tables (no such table: tickwork_" in err
    assert sqlite3.connect(empty).execute("SELECT COUNT(*) FROM sqlite_master").fetchone() == (0,)


def test_a_missing_sqlite_file_is_one_clear_line_and_not_created(tmp_path, capsys):
    assert main(["schedules", "--sqlite", str(tmp_path / "nope.sqlite")], now=NINE) == 1
    assert capsys.readouterr().err == f"tickwork schedules: no SQLite file {tmp_path / 'nope.sqlite'}\n"
    assert not (tmp_path / "nope.sqlite").exists()


def test_where_the_database_is_must_be_said(capsys):
    with pytest.raises(SystemExit) as exit:
        main(["schedules"])
    assert exit.value.code == 2 and "one of the arguments --local --remote --sqlite is required" in capsys.readouterr().err


def test_local_without_local_state_says_how_to_make_it(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.tickwork]\n")
    (tmp_path / "wrangler.toml").write_text('[[d1_databases]]\nbinding = "DB"\ndatabase_name = "x"\n')
    assert main(["status", "--local", "--project", str(tmp_path)], now=NINE) == 1
    said = capsys.readouterr().err
    assert "no local D1 state in" in said
    assert "`tickwork dev` (or `npx wrangler d1 migrations apply DB --local`) makes it" in said, "in a Worker of one's own too"


def test_a_project_without_a_store_is_one_clear_line(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text("[tool.tickwork]\n")
    (tmp_path / "wrangler.toml").write_text('name = "x"\n')
    assert main(["status", "--remote", "--project", str(tmp_path)], now=NINE) == 1
    assert capsys.readouterr().err == (
        "tickwork status: wrangler.toml binds no D1 database to keep schedule state in\n")


# -- wrangler d1 execute as a Database ---------------------------------------------------------

@pytest.mark.parametrize("value, sql", [
    (None, "NULL"), (0, "0"), (1772443800000, "1772443800000"), (-5, "(-5)"), ("alice", "'alice'"),
    ("it's", "'it''s'"), ("'; DROP TABLE tickwork_runs; --", "'''; DROP TABLE tickwork_runs; --'"),
    ("", "''"), ("?1 ünïcode", "'?1 ünïcode'"),
])
def test_parameters_are_written_as_sql_literals(value, sql):
    assert literal(value) == sql


@pytest.mark.parametrize("value", [1.5, True, b"bytes", [1], {"a": 1}, 2**63, "nul\x00", "\ud800"])
def test_anything_but_an_integer_none_or_a_string_is_refused(value):
    with pytest.raises(ValueError):
        literal(value)


def test_inlining_leaves_strings_quoted_names_and_comments_alone():
    sql = "SELECT '?1', \"?2\", x - ?1 -- ?3\n, /* ?2 */ ?2, json_extract(v, '$[0]') WHERE a = ?"
    assert inline(sql, (-1, "it's")) == (
        "SELECT '?1', \"?2\", x - (-1) -- ?3\n, /* ?2 */ 'it''s', json_extract(v, '$[0]') WHERE a = (-1)")


def test_inlining_refuses_a_missing_or_an_unused_parameter():
    with pytest.raises(ValueError, match=r"uses \?2"):
        inline("SELECT ?2", (1,))
    with pytest.raises(ValueError, match=r"\?2 given but not used"):
        inline("SELECT ?1", (1, 2))


def test_every_operator_statement_inlines_and_runs_the_same_on_sqlite(app):
    """What the wrangler adapter sends is the operator's SQL with literals: it runs on SQLite."""
    app.tick([every(15)], NINE)
    conn = sqlite3.connect(app.path)
    sent = []

    class Inlining:
        async def all(self, sql, params=()):
            return (await self.batch([(sql, params)]))[0]

        async def batch(self, statements):
            text = [inline(sql, params) for sql, params in statements]
            sent.extend(text)
            conn.row_factory = sqlite3.Row
            return [[dict(r) for r in conn.execute(t).fetchall()] for t in text]

    store = OperatorStore(Inlining())
    run(store.schedules_page())
    run(store.history("census", NINE, True, 5))
    run(store.explain("census"))
    run(store.status())
    run(store.deliveries(True, 5))
    change = run(store.change("pause", "census", "o'brien", NINE))
    assert change.changed and "'o''brien'" in sent[-3]
    for verb in ("resume", "run", "retry", "dismiss", "cancel"):
        run(store.change(verb, "census", "alice", NINE))
    conn.commit()
    assert [tuple(r) for r in conn.execute("SELECT who, verb FROM tickwork_operator_log ORDER BY rowid")] == [
        ("o'brien", "pause"), ("alice", "resume"), ("alice", "run")]


class Done:
    def __init__(self, returncode, stdout, stderr=""):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def test_the_wrangler_adapter_runs_a_batch_as_one_command_and_reads_each_statements_rows(tmp_path):
    calls = []

    def runner(command, **options):
        calls.append((command, options["cwd"]))
        return Done(0, '\n[{"results": [{"a": 1}], "success": true}, {"results": [], "success": true}]')

    db = WranglerD1(tmp_path, "DB", persist_to=tmp_path / "state", runner=runner)
    assert run(db.batch([("SELECT ?1 AS a", (1,)), ("UPDATE t SET b = ?1", ("x",))])) == [[{"a": 1}], []]
    [(command, cwd)] = calls
    assert command[-9:] == ["d1", "execute", "DB", "--local", "--persist-to", str(tmp_path / "state"), "--json",
                            "--command", "SELECT 1 AS a\n;\nUPDATE t SET b = 'x'"]
    assert cwd == tmp_path
    remote = WranglerD1(tmp_path, "DB", remote=True, runner=runner)
    assert "--remote" in remote.command("SELECT 1") and "--local" not in remote.command("SELECT 1")


def test_a_wrangler_error_is_raised_with_its_text(tmp_path):
    db = WranglerD1(tmp_path, "DB", runner=lambda *a, **k: Done(
        1, '\n{"error": {"text": "no such table: tickwork_app: SQLITE_ERROR"}}'))
    with pytest.raises(WranglerError, match="no such table: tickwork_app"):
        run(db.all("SELECT * FROM tickwork_app"))
    short = WranglerD1(tmp_path, "DB", runner=lambda *a, **k: Done(0, '[{"results": [], "success": true}]'))
    with pytest.raises(WranglerError, match="1 result"):
        run(short.batch([("SELECT 1", ()), ("SELECT 2", ())]))


BUSY = Done(1, "", "workerd/util/sqlite.c++:1672: failed: SQLite failed; database is locked: SQLITE_BUSY\nstack: ...")


def test_a_local_d1_found_busy_is_tried_again_a_few_seconds_apart_its_batch_having_rolled_back(tmp_path):
    answers, paused = [BUSY, BUSY, Done(0, '[{"results": [{"a": 1}], "success": true}]')], []
    db = WranglerD1(tmp_path, "DB", runner=lambda *a, **k: answers.pop(0), pause=paused.append)
    assert run(db.all("SELECT 1 AS a")) == [{"a": 1}]
    assert paused == [2.0, 2.0]


def test_a_local_d1_busy_through_every_try_is_one_line_saying_so_never_the_raw_sqlite_busy(tmp_path):
    paused = []
    db = WranglerD1(tmp_path, "DB", runner=lambda *a, **k: BUSY, pause=paused.append)
    with pytest.raises(WranglerError) as busy:
        run(db.all("UPDATE t SET a = 1"))
    assert str(busy.value) == ("the local D1 stayed busy (SQLITE_BUSY) through 5 tries 2 s apart: another process "
                               "holds it, such as a `tickwork tick`; nothing was changed: try again once it ends")
    assert len(paused) == 4
    remote = WranglerD1(tmp_path, "DB", remote=True, runner=lambda *a, **k: BUSY, pause=paused.append)
    with pytest.raises(WranglerError):
        run(remote.all("UPDATE t SET a = 1"))
    assert len(paused) == 4, "Cloudflare's D1 is never this machine's file another process holds"


def test_why_a_due_time_passed_less_than_the_threshold_ago_waits_for_the_next_tick(app):
    app.tick([every(15)], NINE, NINE + 14 * MINUTE)
    _, answer, _ = app.run("why", "census", now=NINE + 16 * MINUTE)
    assert answer["next_due_why"].endswith("due now: the next tick makes it")
    assert answer["last_due_what"].startswith("none yet")


# -- what reaches a terminal -------------------------------------------------------------------

# A screen clear, a window title and a hyperlink: what a run's error or a `--who` could carry.
ESCAPES = "\x1b[2J\x1b]0;owned\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\ \x9b31m"


def raising(text, name="census"):
    async def fail():
        raise RuntimeError(text)

    return every(15, name=name, action=fail)


def assert_printable(text):
    assert not [c for c in text if c != "\n" and (ord(c) < 32 or 0x7f <= ord(c) < 0xa0)], text


def test_history_and_why_print_control_characters_of_a_runs_detail_and_the_log_escaped(app):
    app.tick([raising(ESCAPES)], NINE, NINE + 15 * MINUTE)
    app.run("pause", "census", "--who", "\x1b[31mmallory", now=NINE + 16 * MINUTE)
    for verb in ("history", "why", "schedules"):
        code, text, _ = app.run(verb, *(["census"] if verb != "schedules" else []), now=NINE + 17 * MINUTE,
                                json_=False)
        assert code == 0
        assert_printable(text)
    _, text, _ = app.run("history", "census", now=NINE + 17 * MINUTE, json_=False)
    assert "\\x1b[2J" in text and "\\x1b[31mmallory pause" in text


def test_deliveries_print_control_characters_of_a_body_and_an_error_escaped(app):
    [running] = emitted(app, "running")
    run(OutboxStore(app.db).raised(running, f"RuntimeError: {ESCAPES}", NINE, True, NINE))
    _, text, _ = app.run("deliveries", now=NINE + HOUR, json_=False)
    assert_printable(text)
    assert "error  RuntimeError: \\x1b[2J" in text


def test_json_keeps_the_text_exactly_with_every_control_character_escaped_as_json(app):
    app.tick([raising(ESCAPES)], NINE, NINE + 15 * MINUTE)
    app.capsys.readouterr()
    main(["history", "census", "--sqlite", str(app.path), "--json"], now=NINE + 16 * MINUTE)
    out = app.capsys.readouterr().out
    assert_printable(out)
    assert ESCAPES in json.loads(out)["runs"][0]["detail"]


def test_an_error_line_prints_control_characters_from_the_database_escaped(app):
    app.tick([every(15)], NINE)
    app.run("run", "census", "--who", "\x1b]0;owned\x07eve", now=NINE)
    code, _, err = app.run("run", "census", now=NINE, json_=False)
    assert code == 0
    _, text, _ = app.run("run", "census", now=NINE, json_=False)
    assert_printable(text)
    assert "asked for by \\x1b]0;owned\\x07eve" in text


# -- the names mean one thing ------------------------------------------------------------------

def test_a_delivery_says_how_many_times_it_was_sent_not_attempts(app):
    """A delivery's count is of sends to its queue; the consumer's tries of each are the queue's."""
    [failed] = emitted(app, "failed")
    _, answer, _ = app.run("deliveries", now=NINE + HOUR)
    assert answer["deliveries"][0]["sends"] == 1 and "attempts" not in answer["deliveries"][0]
    _, text, _ = app.run("deliveries", now=NINE + HOUR, json_=False)
    assert "sent 1 time to its queue" in text and "attempt" not in text


def test_a_failed_delivery_says_how_many_times_its_consumer_tried_the_last_send(app):
    """A delivery fails only once the queue's tries of a send to the app's own consumer are spent:
    `max_retries` of the queue (from the build's manifest) and the first."""
    [failed] = emitted(app, "failed")
    (app.project / "build" / "app").mkdir(parents=True)
    (app.project / "build" / "app" / "tickwork_manifest.py").write_text(
        "PRODUCERS = {'EVENTS': 'shop-events'}\nSCHEDULES = ()\n"
        "CONSUMERS = ({'queue': 'shop-events', 'module': 'app.domains.shop', 'action': 'ship', 'max_retries': 3},)\n")
    _, answer, _ = app.run("deliveries", now=NINE + HOUR)
    assert (answer["deliveries"][0]["sends"], answer["deliveries"][0]["consumer_tries"]) == (1, 4)
    _, text, _ = app.run("deliveries", now=NINE + HOUR, json_=False)
    assert "sent 1 time to its queue, emitted 1 h ago, its consumer raised on all 4 tries of the last" in text


def test_a_run_by_hand_shows_no_due_time_and_says_by_hand(app):
    app.tick([every(15, name="tidy")], NINE)
    app.run("run", "tidy", "--who", "alice", now=NINE + MINUTE)
    app.tick([every(15, name="tidy")], NINE + 2 * MINUTE)
    _, answer, _ = app.run("history", "tidy", now=NINE + 3 * MINUTE)
    [by_hand] = answer["runs"]
    assert (by_hand["due"], by_hand["by_hand"], by_hand["tick"]["ms"]) == (None, "alice", NINE + 2 * MINUTE)
    _, text, _ = app.run("history", "tidy", now=NINE + 3 * MINUTE, json_=False)
    row = text.splitlines()[2]
    assert row.startswith("by hand") and "09:15" not in row
    _, answer, _ = app.run("why", "tidy", now=NINE + 3 * MINUTE)
    assert answer["last_due"] is None and "by hand by alice" in answer["last_due_what"]


def test_at_is_always_the_moment_a_call_was_for_and_tick_the_ticks_time(app):
    app.tick([every(15), calendar("0 9 * * 1", name="weekly")], utc("2026-03-02 08:50"), NINE + 15 * MINUTE)
    app.run("run", "census", "--who", "alice", now=NINE + 16 * MINUTE)
    _, listed, _ = app.run("schedules", now=NINE + 16 * MINUTE)
    census, weekly = by_name(listed)["census"], by_name(listed)["weekly"]
    assert census["last_run"]["tick"]["ms"] == NINE + 15 * MINUTE and "at" not in census["last_run"]
    assert census["run_requested"]["asked"]["ms"] == NINE + 16 * MINUTE and "at" not in census["run_requested"]
    assert weekly["last_run"]["tick"]["ms"] == NINE + 15 * MINUTE
    _, history, _ = app.run("history", "weekly", now=NINE + 16 * MINUTE)
    assert history["runs"][0]["at"]["ms"] == NINE and history["runs"][0]["tick"]["ms"] == NINE + 15 * MINUTE
    _, history, _ = app.run("history", "census", now=NINE + 16 * MINUTE)
    assert history["operator_log"][0]["logged"]["ms"] == NINE + 16 * MINUTE and "at" not in history["operator_log"][0]
    _, changed, _ = app.run("pause", "weekly", now=NINE + 17 * MINUTE)
    assert changed["logged"]["ms"] == NINE + 17 * MINUTE and "at" not in changed


def test_now_for_the_commands_clock_may_be_now_as_for_make_tick(app, capsys):
    import time

    app.tick([every(15)], NINE)
    before = int(time.time() * 1000)
    assert main(["schedules", "--sqlite", str(app.path), "--json", "--now", "now"]) == 0
    assert before <= json.loads(capsys.readouterr().out)["now"]["ms"] <= int(time.time() * 1000)


def test_json_piped_into_a_reader_that_stops_early_ends_without_a_traceback(app):
    import os
    import subprocess
    import sys

    from helpers import ROOT

    app.tick([every(15, name=f"s{k:04}") for k in range(1500)], NINE)
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'scripts'}{os.pathsep}{ROOT / 'src'}"}
    done = subprocess.run(
        f"{sys.executable} -m tickwork_cli schedules --json --sqlite {app.path} | head -c 1 >/dev/null; "
        "exit ${PIPESTATUS[0]}",
        shell=True, executable="/bin/bash", env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr, done.stderr
    assert done.stderr == ""


# -- status after ticks ahead of the clock ------------------------------------------------------

def test_status_says_the_clock_and_the_state_disagree_after_ticks_ahead_of_the_clock(app):
    app.tick([every(15)], NINE + 103 * 24 * HOUR)
    code, text, _ = app.run("status", now=NINE, json_=False)
    assert code == 1
    assert text.startswith("CLOCK AND STATE DISAGREE: the last tick recorded, 2026-06-13 09:00 UTC, is 103 d "
                           "after this command's clock (2026-03-02 09:00 UTC)")
    assert "ticking" not in text
    code, answer, _ = app.run("status", now=NINE)
    assert (code, answer["stopped"], answer["clock_disagrees"]) == (1, None, True)
    _, text, _ = app.run("schedules", now=NINE, json_=False)
    assert "ahead of this command's clock" in text.splitlines()[0]


def test_status_tells_the_tickwork_commands_forms_which_every_worker_has_not_this_repos_make_targets(app):
    app.tick([every(15)], NINE + 103 * 24 * HOUR)
    _, text, _ = app.run("status", now=NINE, json_=False)
    assert "tickwork tick TIME" in text and "tickwork dev --fresh" in text
    assert "make " not in text


# -- values wrangler would rewrite -------------------------------------------------------------

@pytest.mark.parametrize("value", [
    "BEGIN TRANSACTION;alice COMMIT; bob", "BEGIN TRANSACTION", "COMMIT;", "begin transaction; commit;",
    "BEGIN TRANSACTION;BEGIN TRANSACTION;", "it's BEGIN TRANSACTION;", "BEGIN TRANS'ACTION",
])
def test_a_value_is_written_so_that_wranglers_transaction_trimming_cannot_match_it(value):
    """wrangler d1 execute deletes the first `BEGIN TRANSACTION;` and `COMMIT;` of a command
    containing `BEGIN TRANSACTION` (and refuses a second), inside string literals too."""
    written = literal(value)
    assert "BEGIN TRANSACTION" not in written.upper() and "COMMIT;" not in written.upper()
    assert sqlite3.connect(":memory:").execute(f"SELECT {written}").fetchone() == (value,)
