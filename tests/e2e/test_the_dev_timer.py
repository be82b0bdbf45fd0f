"""When `make dev` ticks on its own, computed by the host's timer.mjs without waiting for it: a
cron event at each whole minute with the crons that match it, as Cloudflare's triggers do. The
10-second marks while queues are bound are the Worker's own (tests/test_a_cron_invocation.py).

These run timer.mjs in Node; they need no host.
"""

import json
import subprocess
from pathlib import Path

import pytest

from tickwork.times import utc

TIMER = (Path(__file__).resolve().parents[2] / "scripts" / "host" / "timer.mjs").as_uri()


def _ticks(*, crons, start, end, fire_at="(mark) => mark"):
    """[(ISO time, crons)] the timer delivers from `start` to `end` (UTC), its timeouts firing
    at `fire_at(mark)` (a JS function of the mark, epoch ms)."""
    script = f"""
        import {{ simulateTimer }} from {json.dumps(TIMER)};
        const events = simulateTimer({{
          crons: {json.dumps(crons)}, start: {utc(start)}, end: {utc(end)}, fireAt: {fire_at},
        }});
        process.stdout.write(JSON.stringify(events));
    """
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return [(event["time"], event["crons"]) for event in json.loads(done.stdout)]


def _at(*times):
    return [utc(time) for time in times]


@pytest.fixture
def minute_and_five():
    return ["* * * * *", "*/5 * * * *"]


def test_the_timer_ticks_at_each_whole_minute_with_the_crons_that_match(minute_and_five):
    ticks = _ticks(crons=minute_and_five, start="2026-01-05 12:03:20", end="2026-01-05 12:06:00")

    assert ticks == [
        (utc("2026-01-05 12:04"), ["* * * * *"]),
        (utc("2026-01-05 12:05"), ["* * * * *", "*/5 * * * *"]),
        (utc("2026-01-05 12:06"), ["* * * * *"]),
    ]


def test_a_timeout_that_fires_a_millisecond_early_does_not_tick_the_same_minute_twice():
    ticks = _ticks(crons=["* * * * *"], start="2026-01-05 12:00:00", end="2026-01-05 12:03:00",
                   fire_at="(mark) => mark - 1")

    assert [time for time, _ in ticks] == _at("2026-01-05 12:01", "2026-01-05 12:02", "2026-01-05 12:03")


def test_minutes_passed_while_the_host_was_busy_are_skipped_not_made_up():
    # Every timeout fires 70 s late: the next minute is the first one after the clock.
    ticks = _ticks(crons=["* * * * *"], start="2026-01-05 12:00:00", end="2026-01-05 12:05:00",
                   fire_at="(mark) => mark + 70_000")

    assert [time for time, _ in ticks] == _at("2026-01-05 12:01", "2026-01-05 12:03", "2026-01-05 12:05")
