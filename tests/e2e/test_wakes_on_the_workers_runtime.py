"""Exact timing through delayed queue messages on the Workers runtime (issue 27): the e2e Worker
with a wake queue (`[tool.tickwork] wakes = "WAKES"`, its queue produced and consumed in
wrangler.toml) is ticked once at the wall clock's minute; a `once` item handed over for a few
seconds later runs at its second, woken by the message the tick sent with `delaySeconds`, which
Miniflare's queue holds that long. Nothing else ticks the host (no timer, no 10-second marks),
so only the wake can have run it. One host session."""

import json
import time

import pytest
from conftest import make_project, running_host
from test_deploys_on_the_workers_runtime import rebuilt

from tickwork.times import MINUTE, SECOND

WAKES_TOML = """
# The wakes: delayed messages that tick again at the second a once item or a short retry runs.
[[queues.producers]]
binding = "WAKES"
queue = "tickwork-e2e-wakes"

[[queues.consumers]]
queue = "tickwork-e2e-wakes"
max_batch_size = 100
max_batch_timeout = 0
max_retries = 3
"""
AHEAD = 8 * SECOND  # the once item is due this long after it is handed over


@pytest.fixture(scope="module")
def waking(tmp_path_factory):
    project = make_project(tmp_path_factory.mktemp("wakes"))
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.tickwork]\n", '[tool.tickwork]\nwakes = "WAKES"\n', 1))
    with (project / "wrangler.toml").open("a") as wrangler:
        wrangler.write(WAKES_TOML)
    rebuilt(project)
    with running_host(project) as host:
        yield host


def _a_minute_with_room() -> int:
    """The wall clock's minute, once there are 15 s left of it for the item and its wake."""
    while (time.time() * 1000) % MINUTE > 40 * SECOND:
        time.sleep(0.5)
    return int(time.time() * 1000) // MINUTE * MINUTE


def test_a_once_item_due_between_ticks_runs_at_its_second_woken_by_a_delayed_message(waking):
    minute = _a_minute_with_room()
    due = int(time.time() * 1000) + AHEAD
    answer = waking.fetch("/hand-over", "POST", json.dumps([{"order": 37, "at": due}]).encode())
    assert answer.status == 201, answer
    [id] = answer.json()["ids"]
    ticked = waking.tick(minute)
    assert ticked["ok"] and not ticked["runs"], ticked  # not due at the minute's tick: woken for

    deadline = time.monotonic() + 30
    while not (runs := waking.d1(f"SELECT started_at, tick_at, outcome FROM tickwork_runs WHERE schedule = '{id}'")):
        assert time.monotonic() < deadline, "".join(waking.output[-40:])
        time.sleep(0.5)
    [woken] = runs
    assert woken["outcome"] == "succeeded"
    assert due <= woken["started_at"] < due + 3 * SECOND, (woken, due)  # at its second, not at the next minute
    assert woken["tick_at"] == -(-due // SECOND) * SECOND
    assert woken["started_at"] < minute + MINUTE
    assert "queue tickwork-e2e-wakes: 1 message, 1 acked" in waking.printed("queue tickwork-e2e-wakes")

    again = waking.tick(minute + MINUTE)  # the next minute's tick: nothing more to run
    assert again["ok"] and not [r for r in again["runs"] if r["schedule"] == id]
    assert len(waking.d1(f"SELECT id FROM tickwork_runs WHERE schedule = '{id}'")) == 1
