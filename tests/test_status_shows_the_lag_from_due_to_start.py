"""Issue 27: `tickwork status` shows the lag from due to start of the runs of a window (p50, p95
and p99, per schedule and over all), worked out from the run records of that window alone: the
first attempts of due runs, not retries, runs by hand or backfilled ones."""

import re

from helpers import every, run

from tickwork.operating.lag_words import lag_view
from tickwork.store.lags import LAG_PERCENTILES, lags_since
from tickwork.times import HOUR, MINUTE, SECOND, utc

NINE = utc("2026-03-02 09:00")


def late_ticks(app, schedules, lateness_s):
    """A tick each minute from 09:01, the invocation starting `lateness_s[k]` seconds after its minute."""
    app.tick(schedules, NINE)
    for k, late in enumerate(lateness_s):
        at = NINE + (k + 1) * MINUTE
        app.tick(schedules, at, started_at=at + late * SECOND)


def test_status_gives_the_percentiles_over_all_and_per_schedule_of_the_window(app):
    late_ticks(app, [every(1, "fast"), every(1, "slow")], list(range(1, 21)))  # 1 s to 20 s late
    code, answer, _ = app.run("status", now=NINE + 21 * MINUTE)
    lag = answer["lag"]
    assert lag["window_ms"] == HOUR and lag["capped_at"] is None
    assert lag["overall"] == {"runs": 40, "p50_ms": 10 * SECOND, "p95_ms": 19 * SECOND, "p99_ms": 20 * SECOND,
                              "worst_ms": 20 * SECOND}
    assert lag["schedules"]["fast"] == {"runs": 20, "p50_ms": 10 * SECOND, "p95_ms": 19 * SECOND,
                                        "p99_ms": 20 * SECOND, "worst_ms": 20 * SECOND}
    assert set(lag["schedules"]) == {"fast", "slow"}


def test_status_says_the_lag_in_words(app):
    late_ticks(app, [every(1, "fast")], [2, 2, 2, 2, 30])
    _, text, _ = app.run("status", now=NINE + 6 * MINUTE, json_=False)
    assert "Lag from due to start, the last 1 h: p50 2 s, p95 30 s, p99 30 s (5 runs)" in text
    assert "  fast: p50 2 s, p95 30 s, p99 30 s (5 runs)" in text


def test_the_window_leaves_out_the_runs_before_it(app):
    late_ticks(app, [every(1, "fast")], [50, 50, 1, 1])
    _, answer, _ = app.run("status", "--window", "2m", now=NINE + 4 * MINUTE + 30 * SECOND)
    assert answer["lag"]["overall"]["runs"] == 2 and answer["lag"]["overall"]["worst_ms"] == SECOND


def test_a_retry_waits_its_pause_on_purpose_and_is_no_lag(db):
    from dataclasses import replace

    from helpers import ticks
    from tickwork.model import Retry

    async def failing():
        raise RuntimeError("no")

    schedule = replace(every(15, "sync", failing), retry=Retry(attempts=2, pause=5 * MINUTE))
    ticks(db, [schedule], NINE, NINE + 15 * MINUTE, NINE + 20 * MINUTE)
    [lag, _] = run(lags_since(db, NINE))
    assert (lag.schedule, lag.runs, lag.worst) == (None, 1, 0)


def test_without_runs_in_the_window_status_says_nothing_of_lag(app):
    app.tick([every(15)], NINE)
    _, answer, _ = app.run("status", now=NINE + MINUTE)
    assert answer["lag"]["overall"] is None and lag_view([], HOUR).lines() == [
        "Lag from due to start, the last 1 h: no run started in it"]


def test_the_lags_read_the_windows_records_along_the_primary_key(db):
    plan = [r["detail"] for r in run(db.all(f"EXPLAIN QUERY PLAN {LAG_PERCENTILES}", (NINE, 10)))]
    assert "SEARCH r USING PRIMARY KEY (id>?)" in plan and "SCAN r" not in plan
    assert plan.count("MATERIALIZE lags") == 1  # the records read once for both groupings


def test_the_consoles_overview_shows_the_same_lags_as_status(app):
    from console_fixtures import PREFIX, ask

    late_ticks(app, [every(1, "fast")], [2, 2, 2, 2, 30])
    body = ask(app.db, "GET", PREFIX, now=NINE + 6 * MINUTE).body
    section = body.split("Lag from due to start, the last 1 h")[1].split("</table>")[0]
    cells = re.findall(r'data-label="(?:SCHEDULE|RUNS|P50|P95|P99)">(?:<a [^>]*>)?([^<]*)', section)
    assert cells == ["all schedules", "5", "2 s", "30 s", "30 s", "fast", "5", "2 s", "30 s", "30 s"]


def test_a_run_by_hand_is_no_lag(db):
    from helpers import ticks
    from test_runs_by_hand import ask

    ticks(db, [every(15)], NINE)
    ask(db, at=NINE + MINUTE)
    ticks(db, [every(15)], NINE + 10 * MINUTE)  # asked for at 09:01, for the due time of 09:00
    assert run(lags_since(db, NINE)) == []


def test_a_backfilled_run_is_no_lag(app):
    from test_backfill import APRIL, statement

    monthly = statement(app)
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", now=APRIL + MINUTE)
    app.tick([monthly], APRIL + MINUTE)
    assert [lag.runs for lag in run(lags_since(app.db, APRIL + MINUTE))] == []
