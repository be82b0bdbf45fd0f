"""When `make dev` ticks on its own, computed by the host's timer.mjs without waiting for it:
each whole minute with the crons that match it, and each 10-second mark while queues are bound.

These run timer.mjs in Node; they need no host.
"""

import json
import subprocess
from pathlib import Path

import pytest

from tickwork.times import utc

TIMER = (Path(__file__).resolve().parents[2] / "scripts" / "host" / "timer.mjs").as_uri()


def _ticks(*, crons, queues, start, end, fire_at="(mark) => mark"):
    """[(ISO time, crons)] the timer delivers from `start` to `end` (UTC), its timeouts firing
    at `fire_at(mark)` (a JS function of the mark, epoch ms)."""
    script = f"""
        import {{ simulateTimer, tickStep }} from {json.dumps(TIMER)};
        const events = simulateTimer({{
          crons: {json.dumps(crons)}, step: tickStep({json.dumps(queues)}),
          start: {utc(start)}, end: {utc(end)}, fireAt: {fire_at},
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


def test_without_queues_the_timer_ticks_at_each_whole_minute_with_the_crons_that_match(minute_and_five):
    ticks = _ticks(crons=minute_and_five, queues=False, start="2026-01-05 12:03:20", end="2026-01-05 12:06:00")

    assert ticks == [
        (utc("2026-01-05 12:04"), ["* * * * *"]),
        (utc("2026-01-05 12:05"), ["* * * * *", "*/5 * * * *"]),
        (utc("2026-01-05 12:06"), ["* * * * *"]),
    ]


def test_with_queues_bound_the_timer_also_ticks_at_each_10_second_mark(minute_and_five):
    ticks = _ticks(crons=minute_and_five, queues=True, start="2026-01-05 12:04:55", end="2026-01-05 12:06:00")

    assert ticks == [
        (utc("2026-01-05 12:05"), ["* * * * *", "*/5 * * * *"]),
        *[(utc("2026-01-05 12:05") + s * 1000, ["* * * * *"]) for s in (10, 20, 30, 40, 50)],
        (utc("2026-01-05 12:06"), ["* * * * *"]),
    ]


def test_a_timeout_that_fires_a_millisecond_early_does_not_tick_the_same_mark_twice():
    ticks = _ticks(crons=["* * * * *"], queues=True, start="2026-01-05 12:00:00", end="2026-01-05 12:01:00",
                   fire_at="(mark) => mark - 1")

    assert [time for time, _ in ticks] == [utc("2026-01-05 12:00") + s * 1000 for s in (10, 20, 30, 40, 50, 60)]


def test_marks_passed_while_the_host_was_busy_are_skipped_not_made_up():
    # Every timeout fires 25 s late: the next mark is the first one after the clock.
    ticks = _ticks(crons=["* * * * *"], queues=True, start="2026-01-05 12:00:00", end="2026-01-05 12:01:10",
                   fire_at="(mark) => mark + 25_000")

    assert [time for time, _ in ticks] == _at("2026-01-05 12:00:10", "2026-01-05 12:00:40", "2026-01-05 12:01:10")
