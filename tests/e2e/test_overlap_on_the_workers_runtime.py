"""Issue 25's overlap policy on the Workers runtime (Pyodide, Miniflare's D1), ticked by hand: three
schedules handed over with `overlap: skip`, `overlap: buffer` and `overlap: allow` (POST
/hand-over-overlapping), each run taking a few seconds; a tick made while the runs go on skips
the first, leaves the second waiting and runs the third beside its run going, and the first tick
after the runs end makes the buffered due time, once."""

import json
import threading
import time

from tickwork.times import MINUTE

SLEEP = 8  # seconds each run takes: the tick meanwhile comes well inside it


def _handed_over(host, overlap: str) -> tuple[str, int]:
    body = json.dumps({"every": "10m", "overlap": overlap, "sleep": SLEEP}).encode()
    answer = host.fetch("/hand-over-overlapping", "POST", body)
    assert answer.status == 201, answer
    id = answer.json()["id"]
    [row] = host.d1(f"SELECT due_at, timing FROM tickwork_schedules WHERE name = '{id}'")
    assert json.loads(row["timing"])["overlap"] == overlap
    return id, int(row["due_at"])


def _runs(host, id: str) -> list[tuple]:
    return [(r["due_at"], r["outcome"], r["code"]) for r in host.d1(
        f"SELECT due_at, outcome, code FROM tickwork_runs WHERE schedule = '{id}' ORDER BY due_at")]


def test_a_tick_while_runs_go_on_skips_the_one_told_to_skip_runs_the_allowed_one_beside_and_buffers_the_other(host):
    skipping, skip_due = _handed_over(host, "skip")
    buffering, buffer_due = _handed_over(host, "buffer")
    allowing, allow_due = _handed_over(host, "allow")
    first = max(skip_due, buffer_due, allow_due)
    going = threading.Thread(target=host.tick, args=(first,))
    going.start()  # both runs start, and take SLEEP seconds
    time.sleep(SLEEP / 3)
    meanwhile = host.tick(first + 10 * MINUTE)
    going.join()
    after = host.tick(first + 11 * MINUTE)

    assert meanwhile["ok"] and after["ok"]
    ours = (skipping, buffering, allowing)
    assert sorted((r["schedule"], r["outcome"], r["code"]) for r in meanwhile["runs"] if r["schedule"] in ours) == \
        sorted([(skipping, "skipped", "running"), (allowing, "succeeded", None)])  # the buffered one waits
    assert [(r["schedule"], r["outcome"]) for r in after["runs"] if r["schedule"] in ours] == [
        (buffering, "succeeded")]
    assert _runs(host, skipping) == [(skip_due, "succeeded", None), (skip_due + 10 * MINUTE, "skipped", "running")]
    assert _runs(host, buffering) == [(buffer_due, "succeeded", None), (buffer_due + 10 * MINUTE, "succeeded", None)]
    assert _runs(host, allowing) == [(allow_due, "succeeded", None), (allow_due + 10 * MINUTE, "succeeded", None)]
    beside = host.d1(f"SELECT started_at, ended_at, lease_until FROM tickwork_runs WHERE schedule = '{allowing}' "
                     "ORDER BY due_at")
    assert beside[1]["started_at"] < beside[0]["ended_at"]  # side by side, each keeping its own lease
    assert all(r["lease_until"] is not None for r in beside)
    assert host.d1(f"SELECT due_at FROM tickwork_schedules WHERE name = '{buffering}'") == [
        {"due_at": buffer_due + 20 * MINUTE}]
