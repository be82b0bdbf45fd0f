"""Exact timing through delayed queue messages on the Workers runtime (issue 27): the e2e Worker
with a wake queue (`[tool.tickwork] wakes = "WAKES"`, its queue produced and consumed in
wrangler.toml) is ticked at the wall clock's minutes. A retry 10 s after a failed run runs at
its second, woken by the message the failing tick sent with `delaySeconds`, which Miniflare's
queue holds that long; a `once` item handed over after the minute's tick for a few seconds later
runs at its second, woken by the message its hand-over sent. Nothing else ticks the host (no
timer, no 10-second marks), so only the wakes can have run them. One host session."""

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
# A declared schedule of the variant only: each minute it fails, and is tried again 10 s on.
FLAKY = '''

@schedule(every="1m", retry="1 after 10s")
async def each_minute_flaky():
    raise ActionError("e2e_flaky", "the e2e action fails each attempt on purpose")
'''
AHEAD = 8 * SECOND  # the once item is due this long after it is handed over


@pytest.fixture(scope="module")
def waking(tmp_path_factory):
    project = make_project(tmp_path_factory.mktemp("wakes"))
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.tickwork]\n", '[tool.tickwork]\nwakes = "WAKES"\n', 1))
    with (project / "wrangler.toml").open("a") as wrangler:
        wrangler.write(WAKES_TOML)
    with (project / "src" / "app" / "domains" / "e2e" / "__init__.py").open("a") as domain:
        domain.write(FLAKY)
    rebuilt(project)
    with running_host(project) as host:
        yield host


def _wall() -> int:
    return int(time.time() * 1000)


def _runs_of(host, id: str, count: int) -> list[dict]:
    """The item's runs, once there are `count` of them (30 s at most)."""
    deadline = time.monotonic() + 30
    while len(runs := host.d1(f"SELECT attempt, started_at, tick_at, outcome FROM tickwork_runs "
                              f"WHERE schedule = '{id}' ORDER BY attempt")) < count:
        assert time.monotonic() < deadline, "".join(host.output[-40:])
        time.sleep(0.5)
    return runs


def test_a_retry_10_seconds_on_runs_at_its_second_woken_by_the_failed_ticks_delayed_message(waking):
    id = "each_minute_flaky"
    assert waking.tick(_wall() // MINUTE * MINUTE)["ok"]  # the tick that first sees it
    [row] = waking.d1(f"SELECT due_at FROM tickwork_schedules WHERE name = '{id}'")
    due = int(row["due_at"])
    while _wall() < due:  # its minute's tick, on the wall clock
        time.sleep(0.2)
    ticked = waking.tick(due)
    assert [(r["attempt"], r["outcome"]) for r in ticked["runs"] if r["schedule"] == id] == [(1, "failed")]
    [pending] = waking.d1(f"SELECT due_at, retry_attempt FROM tickwork_schedules WHERE name = '{id}'")
    retry_at = int(pending["due_at"])  # the retry's moment (the row's due time while a retry is pending)
    assert pending["retry_attempt"] is not None and due < retry_at < due + MINUTE, pending

    first, again = _runs_of(waking, id, 2)
    assert (again["attempt"], again["outcome"]) == (2, "failed")
    assert retry_at <= again["started_at"] < retry_at + 3 * SECOND, (again, retry_at)  # not the next minute's
    assert again["tick_at"] == -(-retry_at // SECOND) * SECOND
    assert "queue tickwork-e2e-wakes: 1 message, 1 acked" in waking.printed("queue tickwork-e2e-wakes")


def test_a_once_item_handed_over_after_the_minute_tick_runs_at_its_second(waking):
    while _wall() % MINUTE > 40 * SECOND:  # room in the minute for the item and its wake
        time.sleep(0.5)
    minute = _wall() // MINUTE * MINUTE
    assert waking.tick(minute)["ok"]
    due = _wall() + AHEAD
    answer = waking.fetch("/hand-over", "POST", json.dumps([{"order": 37, "at": due}]).encode())
    assert answer.status == 201, answer
    [id] = answer.json()["ids"]

    [woken] = _runs_of(waking, id, 1)
    assert woken["outcome"] == "succeeded"
    assert due <= woken["started_at"] < due + 3 * SECOND, (woken, due)  # at its second, not at the next minute
    assert woken["tick_at"] == -(-due // SECOND) * SECOND
    again = waking.tick(minute + MINUTE)  # the next minute's tick: nothing more to run
    assert again["ok"] and not [r for r in again["runs"] if r["schedule"] == id]
    assert len(waking.d1(f"SELECT id FROM tickwork_runs WHERE schedule = '{id}'")) == 1
