"""Issue 25, "Retries that know when to stop": a code that is never retried (an ActionError raised
with retry=False, a rule's `except invalid_input`) ends the due time's attempts at once, as
attempts used up do; `up to 30m` stops the pauses growing; `jitter 30s` adds to each pause an
offset in [0, 30s) drawn from (schedule, due time, attempt), the same for every racing tick."""

import json
import sqlite3

import pytest
from faults import at
from harness import FakeQueue
from helpers import lose_a_run, open_store, run, runs, state, ticks
from test_failures_announced import alerting
from test_retries import attempts, daily
from test_retries_backfill_and_alerts_together import connections, race

from tickwork import ActionError, clock
from tickwork.errors import ScheduleError
from tickwork.health import health
from tickwork.kinds.forms import retry_of_entry
from tickwork.kinds.rules import retry_of
from tickwork.model import ATTEMPT_LEFT_SQL, PAUSE_AFTER_SQL, SEEDS_SQL, Code, Kind, Outcome, Retry, jitter_of, seed_of
from tickwork.per_item import Items
from tickwork.times import MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")


class Refusing:
    """An action failing with `code` (an ActionError, `retry` as given) its first `failures` calls."""

    def __init__(self, code="invalid_input", retry=True, failures=1_000):
        self.code, self.retry, self.failures = code, retry, failures
        self.calls: list[int] = []

    async def __call__(self):
        self.calls.append(clock.now_ms)
        if len(self.calls) <= self.failures:
            raise ActionError(self.code, "the customer's VAT number is malformed", retry=self.retry)


# -- a code that is never retried --------------------------------------------------------------

def test_an_action_error_raised_with_retry_false_ends_the_due_times_attempts_at_once(db):
    action = Refusing(retry=False)
    statement = daily(action)  # 3 attempts more, after 1m, 2m and 4m
    ticks(db, [statement], utc("2026-03-01 12:00"), NINE, NINE + MINUTE, NINE + 3 * MINUTE, NINE + 7 * MINUTE)
    assert action.calls == [NINE]
    [record] = runs(db, "statement")
    assert (record["outcome"], record["code"], record["kind"]) == (Outcome.FAILED, "invalid_input", Kind.UNRETRIED)
    assert state(db, "statement").retry_attempt is None
    assert state(db, "statement").due_at == utc("2026-03-03 09:00")


def test_a_code_the_rule_names_in_except_is_never_retried_and_others_are(db):
    refused, failing = Refusing("invalid_input"), Refusing("unavailable", failures=1)
    rule = retry_of("3 after 1m except invalid_input, not_found", False)
    ticks(db, [daily(refused, retry=rule)], utc("2026-03-01 12:00"), NINE, NINE + MINUTE, NINE + 3 * MINUTE)
    assert refused.calls == [NINE]
    assert attempts(db) == [(NINE, 1, Outcome.FAILED, "invalid_input")]
    assert runs(db, "statement")[0]["kind"] == Kind.UNRETRIED
    ticks(db, [daily(failing, retry=rule)], utc("2026-03-03 09:00"), utc("2026-03-03 09:01"))
    assert failing.calls == [utc("2026-03-03 09:00"), utc("2026-03-03 09:01")]


def test_an_unretried_failure_on_a_retry_is_the_due_times_last(db):
    class Then:
        calls = 0

        async def __call__(self):
            Then.calls += 1
            raise ActionError("unavailable" if Then.calls == 1 else "invalid_input", "no")

    statement = daily(Then(), retry=retry_of("3 after 1m except invalid_input", False))
    ticks(db, [statement], utc("2026-03-01 12:00"), NINE, NINE + MINUTE, NINE + 3 * MINUTE, NINE + 7 * MINUTE)
    assert [(a, o, c) for _, a, o, c in attempts(db)] == [(1, Outcome.FAILED, "unavailable"),
                                                          (2, Outcome.FAILED, "invalid_input")]
    assert sorted(r["kind"] for r in runs(db, "statement")) == [Kind.RAISED, Kind.UNRETRIED]


def test_where_no_attempt_was_left_a_failure_with_retry_false_is_recorded_raised(db):
    statement = daily(Refusing(retry=False), retry=None)
    ticks(db, [statement], utc("2026-03-01 12:00"), NINE)
    assert runs(db, "statement")[0]["kind"] == Kind.RAISED


def test_an_unretried_failure_alerts_at_once_as_attempts_used_up_do(db):
    queue = FakeQueue()
    statement = daily(Refusing(retry=False))
    ticks(db, [statement], NINE - MINUTE, NINE, **alerting(db, queue, at=NINE))
    [failing] = [m for m in queue.messages if m["event"] == "tickwork.schedule_failing"]
    assert failing["body"]["code"] == "invalid_input"
    status, body = run(health(db, NINE + MINUTE, failing=503))
    assert (status, body["failing"]) == (503, ["statement"])


# -- a ceiling and a jitter --------------------------------------------------------------------

def test_pauses_double_and_stop_growing_at_the_ceiling(db):
    action = Refusing("unavailable")
    statement = daily(action, retry=retry_of("5 after 1m up to 3m", False))
    moments = [NINE + m * MINUTE for m in (0, 1, 3, 6, 9, 12, 15, 30)]
    ticks(db, [statement], utc("2026-03-01 12:00"), *moments)
    assert action.calls == [NINE + m * MINUTE for m in (0, 1, 3, 6, 9, 12)]  # 1m, 2m, then 3m, 3m, 3m


def test_a_jitter_adds_to_each_pause_an_offset_drawn_from_the_schedule_the_due_time_and_the_attempt():
    rule = Retry(3, MINUTE, jitter=30 * SECOND)
    offsets = {rule.pause_after(1, name, due) - MINUTE for name in ("statement", "invoice", "a")
               for due in range(NINE, NINE + 30 * 86_400_000, 86_400_000)}
    assert all(0 <= o < 30 * SECOND and o % SECOND == 0 for o in offsets)
    assert len(offsets) > 20  # spread, not one offset for all
    assert rule.pause_after(2, "statement", NINE) == 2 * MINUTE + jitter_of(seed_of("statement"), NINE, 2, 30_000)
    assert rule.pause_after(1, "statement", NINE) == rule.pause_after(1, "statement", NINE)


def test_a_jittered_retry_comes_after_its_pause_and_its_offset(db):
    action = Refusing("unavailable", failures=1)
    rule = retry_of("3 after 1m jitter 50s", True)
    offset = jitter_of(seed_of("statement"), NINE, 1, 50 * SECOND)
    assert offset >= 10 * SECOND  # this name and due time draw one a tick at 09:01 is before
    ticks(db, [daily(action, retry=rule)], utc("2026-03-01 12:00"), NINE, NINE + MINUTE)
    assert action.calls == [NINE]
    assert state(db, "statement").due_at == NINE + MINUTE + offset
    ticks(db, [daily(action, retry=rule)], NINE + MINUTE + offset)
    assert action.calls == [NINE, NINE + MINUTE + offset]


# -- the rule in SQL and in Python ---------------------------------------------------------------

NAMES = ["statement", "a", "", "billing.nightly_statements", "ad3f09c2b7e1", "Zürich-täglich", "日次の請求",
         "report_eu_daily_x", "report_us_daily_x", "emoji_😀_nightly"]


def seeds_in_sql(names: list[str]) -> dict[str, int]:
    """SEEDS_SQL's seed of each of `names`, as a statement of the store computes it."""
    db = sqlite3.connect(":memory:")
    sql = f"WITH RECURSIVE given(name) AS (SELECT value FROM json_each(?1)), {SEEDS_SQL.format(names='given')} " \
          "SELECT name, seed FROM seeds"
    return dict(db.execute(sql, (json.dumps(names),)).fetchall())


def test_a_names_seed_is_hashed_alike_in_sql_and_in_python_from_every_character():
    assert seeds_in_sql(NAMES) == {name: seed_of(name) for name in NAMES}


def test_names_sharing_their_length_and_both_ends_draw_different_offsets():
    eu, us = "report_eu_daily_x", "report_us_daily_x"  # the same length, first and last six characters
    assert seed_of(eu) != seed_of(us)
    drawn = [(jitter_of(seed_of(eu), NINE + d * 86_400_000, 1, 3_600_000),
              jitter_of(seed_of(us), NINE + d * 86_400_000, 1, 3_600_000)) for d in range(30)]
    assert sum(a != b for a, b in drawn) >= 28


@pytest.mark.parametrize("rule", [Retry(8, MINUTE, 30 * MINUTE), Retry(5, 10 * SECOND, 20 * SECOND, 30 * SECOND),
                                  Retry(3, MINUTE, jitter=7 * SECOND), Retry(10, MINUTE, jitter=3_600_000)])
def test_a_lapsed_runs_retry_is_timed_in_sql_as_in_python_with_a_ceiling_and_a_jitter(rule):
    sql = (f"SELECT CASE WHEN {ATTEMPT_LEFT_SQL.format(attempt='?1', attempts='?2')} THEN "
           f"{PAUSE_AFTER_SQL.format(pause='?3', attempt='?1', ceiling='?4', jitter='?5', seed='?6', due='?7')} END")
    db = sqlite3.connect(":memory:")
    seeds = seeds_in_sql(NAMES)
    for name in NAMES:
        for due in (NINE, NINE + 86_400_000, utc("2031-07-19 23:59:50")):
            in_sql = [db.execute(sql, (a, float(rule.attempts), float(rule.pause), rule.ceiling, float(rule.jitter),
                                       seeds[name], float(due))).fetchone()[0] for a in range(1, 12)]
            assert in_sql == [rule.pause_after(a, name, due) for a in range(1, 12)], (name, due)


# -- the rule, read once --------------------------------------------------------------------------

@pytest.mark.parametrize("text, part", [
    ("3 after 1m up to 30s", "its ceiling (`up to 30s`) is shorter than its first pause"),
    ("3 after 1m up to soon", "its ceiling (`up to`), `soon`, is not a duration"),
    ("3 after 1m jitter often", "its jitter, `often`, is not a duration"),
    ("3 after 1m except", "`except` names 'nothing', not a code"),
    ("3 after 1m except invalid input", "`except` names 'invalid input', not a code"),
    ("3 after 1m except lease_expired", "is always retried"),
    ("3 after 1m jitter 30s up to 5m", "`jitter 30s up to 5m` is not `up to C`, then `jitter J`, then `except`"),
    ("3 after 1m upto 5m", "`upto 5m` is not `up to C`"),
    ("three after 1m", "is not a number of attempts more and the first pause"),
])
def test_a_rule_wrong_in_one_part_is_refused_naming_that_part(text, part):
    with pytest.raises(ScheduleError) as refused:
        retry_of(text, False)
    assert refused.value.code == "schedule.retry_invalid"
    assert part in refused.value.message and refused.value.mend


def test_a_rule_is_kept_as_settings_and_read_back_whole_and_an_old_one_reads_as_before():
    rule = retry_of("8 after 1m up to 30m jitter 30s except invalid_input, not_found", False)
    assert rule == Retry(8, MINUTE, 30 * MINUTE, 30 * SECOND, ("invalid_input", "not_found"))
    assert retry_of_entry(rule.settings()) == rule
    assert retry_of_entry({"retry_attempts": 3, "retry_pause_ms": MINUTE}) == Retry(3, MINUTE)
    assert Retry(3, MINUTE).settings() == {"retry_attempts": 3, "retry_pause_ms": MINUTE}


async def send():
    raise ActionError("invalid_input", "the address has no postcode")


async def deliver():
    return None


def test_items_take_the_whole_rule_and_refuse_a_bad_one_with_the_builds_code(db):
    hand = Items(db, lambda: utc("2026-03-01 12:00"))
    id = run(hand.calendar(send, {"customer": "c1"}, "0 9 * * *", retry="3 after 1m except invalid_input"))
    ticks(db, [], NINE, NINE + MINUTE, NINE + 3 * MINUTE)
    assert [(r["attempt"], r["kind"]) for r in runs(db, id)] == [(1, Kind.UNRETRIED)]
    for hand_over in (lambda: hand.every(send, {"c": 2}, "1d", retry="3 after 1m up to 10s"),
                      lambda: hand.every_many(send, [{"c": 3}], "1d", retry="3 after 1m jitter soon"),
                      lambda: hand.hand_over([{"action": send, "input": {"c": 4}, "every": "1d",
                                               "retry": "2 after 1m except"}])):
        with pytest.raises(ScheduleError) as refused:
            run(hand_over())
        assert refused.value.code == "schedule.retry_invalid"


# -- racing ticks, one killed --------------------------------------------------------------------

def test_racing_tickers_never_retry_an_unretried_failure(tmp_path):
    dbs = connections(tmp_path / "d1.sqlite")
    action = Refusing(retry=False)
    statement = daily(action)
    ticks(dbs[0], [statement], utc("2026-03-01 12:00"))
    for moment in (NINE, NINE + MINUTE, NINE + 3 * MINUTE, NINE + 7 * MINUTE):
        race(dbs, [statement], moment)
    assert action.calls == [NINE]
    assert [(r["attempt"], r["kind"]) for r in runs(dbs[0], "statement")] == [(1, Kind.UNRETRIED)]


def test_racing_tickers_with_one_killed_agree_on_a_ceiling_pause_and_its_jitter(tmp_path):
    dbs = connections(tmp_path / "d1.sqlite")
    action = Refusing("unavailable")
    rule = retry_of("6 after 1m up to 2m jitter 30s", False)
    statement = daily(action, retry=rule)
    ticks(dbs[0], [statement], utc("2026-03-01 12:00"))
    moment = NINE
    for attempt in range(1, 4):  # each attempt's tick raced; each retry comes after pause and offset
        race(dbs, [statement], moment)
        moment += rule.pause_after(attempt, "statement", NINE)
        assert state(dbs[0], "statement").due_at == moment
    race(dbs, [statement], moment, killed_after=at("claim"))  # attempt 4, lost with its lease
    lapsed = moment + 16 * MINUTE
    race(dbs, [statement], lapsed)  # its retry scheduled in SQL, by the same rule
    assert state(dbs[0], "statement").due_at == lapsed + rule.pause_after(4, "statement", NINE)
    assert rule.pause_after(4, "statement", NINE) - 2 * MINUTE < 30 * SECOND
    assert sorted((a, o, c) for _, a, o, c in attempts(dbs[0])) == [
        (1, Outcome.FAILED, "unavailable"), (2, Outcome.FAILED, "unavailable"), (3, Outcome.FAILED, "unavailable"),
        (4, Outcome.FAILED, Code.LEASE_EXPIRED)]


def test_a_lapsed_runs_retry_takes_a_handed_over_rules_ceiling_and_jitter(db):
    hand = Items(db, lambda: utc("2026-03-01 12:00"))
    id = run(hand.every(deliver, {"c": 2}, "1h", retry="3 after 5m up to 5m jitter 40s"))
    ticks(db, [], utc("2026-03-01 12:01"))
    due = state(db, id).due_at
    assert jitter_of(seed_of(id), due, 1, 40 * SECOND) > 0  # this id and due time draw an offset
    lose_a_run(db, id, due=due, next_due=due + 3_600_000, until=due + 2 * MINUTE)
    ticks(db, [], due + 3 * MINUTE)
    assert state(db, id).retry_attempt == 2
    assert state(db, id).due_at == due + 3 * MINUTE + 5 * MINUTE + jitter_of(seed_of(id), due, 1, 40 * SECOND)


async def unavailable():
    raise ActionError("unavailable", "the ledger is down")


def test_a_lapsed_retrys_pause_stops_at_a_handed_over_rules_ceiling(tmp_path):
    dbs = connections(tmp_path / "d1.sqlite")
    hand = Items(dbs[0], lambda: utc("2026-03-01 12:00"))
    id = run(hand.every(unavailable, {"c": 5}, "1d", retry="3 after 5m up to 6m jitter 40s"))
    ticks(dbs[0], [], utc("2026-03-01 12:01"))
    due = state(dbs[0], id).due_at
    race(dbs, [], due)  # attempt 1 fails: attempt 2 after 5m and its offset
    second = state(dbs[0], id).due_at
    race(dbs[:1], [], second, killed_after=at("claim"))  # attempt 2, lost with its lease (no other ticker)
    lapsed = second + 16 * MINUTE
    race(dbs, [], lapsed)  # attempt 3 scheduled in SQL: 6m (not 10m) and its offset
    assert state(dbs[0], id).retry_attempt == 3
    assert state(dbs[0], id).due_at == lapsed + 6 * MINUTE + jitter_of(seed_of(id), due, 2, 40 * SECOND)


# -- shown in words ------------------------------------------------------------------------------

ENTRY = {"kind": "calendar", "name": "statement", "source": "src/app/x.py:3", "cron": "0 9 * * *", "zone": "UTC"}


def test_why_and_history_say_a_code_the_rule_names_is_never_retried(app):
    rule = retry_of("3 after 1m except invalid_input", False)
    app.tick([daily(Refusing(), retry=rule)], utc("2026-03-01 12:00"), NINE)
    app.manifest({**ENTRY, **rule.settings()})
    said = "not retried: invalid_input is never retried (retry 3 after 1m except invalid_input)"
    _, why, _ = app.run("why", "statement", now=NINE + MINUTE)
    assert said in why["last_due_what"]
    assert why["rule"].endswith("invalid_input is never retried (`retry: 3 after 1m except invalid_input`)")
    _, history, _ = app.run("history", "statement", now=NINE + MINUTE)
    assert [r["not_retried"] for r in history["runs"]] == [said]
    _, text, _ = app.run("history", "statement", now=NINE + MINUTE, json_=False)
    assert f"2026-03-02 09:00 UTC: {said}" in text


def test_why_says_an_action_error_raised_with_retry_false_was_not_retried(app):
    app.tick([daily(Refusing(retry=False))], utc("2026-03-01 12:00"), NINE)
    app.manifest({**ENTRY, **Retry(3, MINUTE).settings()})
    _, why, _ = app.run("why", "statement", now=NINE + MINUTE)
    assert "not retried: the action raised invalid_input with retry=False" in why["last_due_what"]


def test_why_says_a_pending_retrys_place_and_its_pause_at_the_ceiling(app):
    rule = retry_of("8 after 1m up to 2m", False)
    action = Refusing("unavailable")
    app.tick([daily(action, retry=rule)], utc("2026-03-01 12:00"), NINE, NINE + MINUTE, NINE + 3 * MINUTE)
    app.manifest({**ENTRY, **rule.settings()})
    _, why, _ = app.run("why", "statement", now=NINE + 4 * MINUTE)
    assert ("attempt 4 of 9 for 2026-03-02 09:00 UTC (retry 3 of 8 after 2m (the ceiling))"
            in why["next_due_why"])
    _, history, _ = app.run("history", "statement", now=NINE + 4 * MINUTE)
    assert [r["retry"] for r in history["runs"]] == [
        "retry 2 of 8 after 2m (the ceiling)", "retry 1 of 8 after 1m", None]
    _, text, _ = app.run("history", "statement", now=NINE + 4 * MINUTE, json_=False)
    assert "3: retry 2 of 8 after 2m " in text


def test_schedules_show_the_retry_rule_whole(app):
    rule = retry_of("8 after 1m up to 30m jitter 30s except invalid_input, not_found", False)
    app.tick([daily(Refusing(), retry=rule)], utc("2026-03-01 12:00"))
    app.manifest({**ENTRY, **rule.settings()})
    _, listed, _ = app.run("schedules", now=NINE)
    whole = "8 after 1m up to 30m jitter 30s except invalid_input, not_found"
    assert [s["retry"] for s in listed["schedules"]] == [whole]
    _, text, _ = app.run("schedules", now=NINE, json_=False)
    assert "RETRY" in text and whole in text


def page(db, path, now, schedules):
    from console_fixtures import PREFIX, ask
    from test_the_console_pages import shown

    from tickwork.app import App

    return shown(ask(db, "GET", PREFIX + path, now=now, app=App("DB", tuple(schedules), console={"prefix": PREFIX})))


def test_the_console_says_a_run_was_not_retried_and_shows_the_rule_whole(db):
    rule = retry_of("3 after 1m up to 2m except invalid_input", False)
    statement = daily(Refusing(), retry=rule)
    ticks(db, [statement], utc("2026-03-01 12:00"), NINE)
    schedule = page(db, "/schedule?name=statement", NINE + MINUTE, [statement])
    assert "not retried: invalid_input is never retried (retry 3 after 1m up to 2m except invalid_input)" in schedule
    assert "(`retry: 3 after 1m up to 2m except invalid_input`)" in schedule
    assert "not retried: invalid_input ended its due time's attempts" in page(db, "/runs", NINE + MINUTE, [statement])


def test_the_runs_across_schedules_never_say_a_code_raised_with_retry_false_is_never_retried(db):
    statement = daily(Refusing(retry=False), retry=retry_of("3 after 1m", False))
    ticks(db, [statement], utc("2026-03-01 12:00"), NINE)
    runs_page = page(db, "/runs", NINE + MINUTE, [statement])
    assert "not retried: invalid_input ended its due time's attempts" in runs_page
    assert "is never retried" not in runs_page  # its next failure under the code may well be retried


def test_the_console_says_each_retrys_place_and_a_pause_at_the_ceiling(db):
    statement = daily(Refusing("unavailable"), retry=retry_of("8 after 1m up to 2m", False))
    ticks(db, [statement], utc("2026-03-01 12:00"), NINE, NINE + MINUTE, NINE + 3 * MINUTE)
    schedule = page(db, "/schedule?name=statement", NINE + 4 * MINUTE, [statement])
    assert "attempt 3 of 9 retry 2 of 8 after 2m" in schedule
    assert "(retry 3 of 8 after 2m (the ceiling))" in schedule


# -- what it costs -------------------------------------------------------------------------------

def test_with_the_whole_rule_a_nothing_due_tick_stays_two_statements_one_round_trip_one_row(db):
    from test_failures_announced import cost

    rule = retry_of("8 after 1m up to 30m jitter 30s except invalid_input, not_found", False)
    schedules = [daily(Refusing(), retry=rule)]
    ticks(db, schedules, utc("2026-03-01 12:00"), NINE)  # its run failed: never retried, nothing pending
    assert cost(db, schedules, NINE + 10 * MINUTE) == (2, 1, 1)


def test_an_unretried_failure_costs_no_statement_more_than_a_failure_without_retries(db):
    from test_statements_per_tick import cost

    ticks(db, [daily(Refusing(retry=False))], utc("2026-03-01 12:00"))
    unretried = cost(db, NINE, [daily(Refusing(retry=False))])
    other = open_store()
    ticks(other, [daily(Refusing(), retry=None)], utc("2026-03-01 12:00"))
    assert unretried == cost(other, NINE, [daily(Refusing(), retry=None)])


def test_the_workers_run_line_says_a_failure_was_not_retried(db):
    from tickwork.adapters.workers import describe

    ticks(db, [daily(Refusing(retry=False))], utc("2026-03-01 12:00"))
    [report] = ticks(db, [daily(Refusing(retry=False))], NINE)
    assert describe(report.runs[0]).startswith(
        "tickwork: statement due 2026-03-02T09:00:00.000Z: failed (invalid_input) in 0 ms; not retried: retry=False "
        "or the rule's `except` ended its due time's attempts")
    assert "is never retried" not in describe(report.runs[0])  # raised with retry=False, the code may be retried
