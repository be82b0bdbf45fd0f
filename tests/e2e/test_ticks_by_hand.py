"""A tick by hand (`make tick TIME=`, `?time=` on the scheduled routes) moves the schedules' due
times for good, so a time that is not plausibly epoch milliseconds is refused, and one more than
a day from the host's clock is made only with `--far` (`far=1`).

The rules are times.mjs's `tickTime`, run in Node with the clock passed in; the routes are
checked on the host.
"""

import json
import os
import subprocess
import time

import pytest
from helpers import ROOT, in_node

from tickwork.times import DAY, MINUTE, utc

TIMES = ROOT / "scripts" / "host" / "times.mjs"
NOW = utc("2026-01-05 12:00")


def tick_time(text, now=NOW, far=False):
    """`{"time": epoch ms}` or `{"refused": message}`: what the host makes of `text` at `now`."""
    answer = in_node(TIMES, "tickTime", f"tickTime({json.dumps(text)}, {{ now: {now}, far: {json.dumps(far)} }})")
    return {"time": answer["value"]} if "value" in answer else answer


def test_epoch_milliseconds_and_iso_utc_times_within_a_day_are_taken():
    assert tick_time(str(utc("2026-01-05 09:15"))) == {"time": utc("2026-01-05 09:15")}
    assert tick_time("2026-01-05T09:15Z") == {"time": utc("2026-01-05 09:15")}
    assert tick_time("2026-01-06 11:59") == {"time": utc("2026-01-06 11:59")}


@pytest.mark.parametrize("text", ["-5", "May 5", "5 2026-01-05", "2026-1-5T09:15Z", "2026-01-05T09:15Z tomorrow"])
def test_a_time_neither_epoch_ms_nor_iso_is_refused_even_with_far(text):
    """Not left to Date.parse, which reads `-5` as 2001-05-01 and `May 5` as a day of 2001."""
    refused = tick_time(text, far=True)["refused"]

    assert f"time '{text}' is neither epoch ms nor an ISO UTC time" in refused


def test_now_is_the_minute_of_the_hosts_clock():
    assert tick_time("now", now=utc("2026-01-05 12:00") + 42_500) == {"time": utc("2026-01-05 12:00")}


def test_an_epoch_in_seconds_is_refused_saying_what_it_would_mean_and_what_to_write():
    seconds = utc("2026-01-05 09:00") // 1000

    refused = tick_time(str(seconds))["refused"]

    assert f"time {seconds} is not epoch milliseconds" in refused
    assert "as seconds it is 2026-01-05T09:00:00Z" in refused
    assert f"write {seconds * 1000}" in refused


def test_an_epoch_in_microseconds_is_refused_likewise():
    micros = utc("2026-01-05 09:00") * 1000

    refused = tick_time(str(micros))["refused"]

    assert "as microseconds it is 2026-01-05T09:00:00Z" in refused
    assert f"write {utc('2026-01-05 09:00')}" in refused


@pytest.mark.parametrize(
    "when, said",
    [
        ("2036-01-05T12:00Z", "3652 days after now (2026-01-05T12:00:00Z)"),
        ("2026-01-06T12:01Z", "24 hours after now"),
        ("2026-01-04T11:00Z", "25 hours before now"),
    ],
)
def test_a_tick_more_than_a_day_from_the_clock_is_refused_without_far(when, said):
    refused = tick_time(when)["refused"]

    assert f"a tick at {when[:16]}:00Z is {said}" in refused
    assert "add --far (tickwork tick TIME --far; far=1 on /cdn-cgi/handler/scheduled)" in refused
    assert "tickwork dev --fresh starts again from an empty local D1" in refused


def test_with_far_a_tick_ten_years_ahead_is_made():
    assert tick_time("2036-01-05T12:00Z", far=True) == {"time": utc("2036-01-05 12:00")}


# --- on the host ---


def _ten_years_ahead():
    return (int(time.time() * 1000) // MINUTE) * MINUTE + 3652 * DAY


def _schedules(host):
    return host.d1("SELECT name, due_at FROM tickwork_schedules")


def test_the_scheduled_route_refuses_a_far_tick_without_far_and_moves_nothing(host):
    answer = host.fetch(f"/cdn-cgi/handler/scheduled?time={_ten_years_ahead()}")

    assert answer.status == 400
    assert "add --far" in answer.text and "far=1" in answer.text
    assert _schedules(host) == []


def test_the_scheduled_route_ticks_at_a_far_time_with_far_1(host):
    far = _ten_years_ahead()

    answer = host.fetch(f"/cdn-cgi/handler/scheduled?time={far}&far=1")

    assert (answer.status, answer.text) == (200, "Ran scheduled event")
    census = [row for row in _schedules(host) if row["name"] == "chore_census"]
    assert census == [{"name": "chore_census", "due_at": far + 15 * MINUTE}]


def test_wranglers_test_scheduled_route_runs_a_tick_as_well(host):
    host.tick(utc("2026-01-05 12:00"))

    answer = host.fetch(f"/__scheduled?cron=*+*+*+*+*&time={utc('2026-01-05 12:15')}&far=1")

    assert (answer.status, answer.text) == (200, "Ran scheduled event")
    rows = host.d1("SELECT due_at, outcome FROM tickwork_runs WHERE schedule = 'chore_census'")
    assert rows == [{"due_at": utc("2026-01-05 12:15"), "outcome": "succeeded"}]


def test_a_one_shot_tick_at_an_epoch_in_seconds_exits_with_one_line_saying_so(host):
    done = host.run_host("tick", "--time", str(utc("2026-01-05 09:00") // 1000))

    assert done.returncode == 1
    assert done.stderr.count("\n") == 1, done.stderr
    assert "as seconds it is 2026-01-05T09:00:00Z" in done.stderr
    assert done.stdout == ""


def _shell():
    """The environment of a shell, not of the `make test` that runs these tests."""
    return {key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def test_make_tick_hands_the_host_a_time_that_starts_with_a_dash_as_a_time(host):
    """`make tick TIME=-5` is refused for what it is, not as an option node cannot parse."""
    done = subprocess.run(
        ["make", "--no-print-directory", "tick", "TIME=-5", f"ARGS=--persist-to {host.state}"],
        cwd=ROOT, env=_shell(), capture_output=True, text=True, timeout=600,
    )

    assert done.returncode != 0
    assert "tickwork host: time '-5' is neither epoch ms nor an ISO UTC time" in done.stderr
    assert "ambiguous" not in done.stderr
    assert done.stdout == ""


def test_a_tick_a_month_ahead_keeps_the_history_just_made_and_holds_up_no_tick_on_the_clock(host):
    """Only its runs follow a tick's time: its leases, housekeeping and the gaps keep to the clock."""
    base = int(time.time() * 1000) // MINUTE * MINUTE - 10 * MINUTE  # minutes past: no 10-second marks
    host.tick(base - 15 * MINUTE)
    host.tick(base)  # chore_census runs
    host.d1("UPDATE tickwork_app SET housekeeping_done_at = NULL")  # a pass is due
    assert host.tick(base + 40 * DAY)["ok"]  # by hand, forty days ahead: chore_census runs again
    host.d1("UPDATE tickwork_schedules SET run_requested_at = 1, run_requested_by = 'ada' WHERE name = 'chore_census'")
    assert host.tick(base + MINUTE)["ok"]  # on the clock again: the run asked for is made
    rows = host.d1("SELECT by_hand, outcome FROM tickwork_runs WHERE schedule = 'chore_census' ORDER BY started_at")
    assert rows == [{"by_hand": None, "outcome": "succeeded"}] * 2 + [{"by_hand": "ada", "outcome": "succeeded"}]
    assert host.d1("SELECT from_tick FROM tickwork_gaps") == []
