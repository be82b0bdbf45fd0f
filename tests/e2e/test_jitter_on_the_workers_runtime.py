"""Jitter on the Workers runtime (issue 25): D1 computes each row's `runs_at` (migration 0028's
generated column) as Python draws it; a jittered calendar runs once, at the first tick past its
offset, for its nominal `call.at`; items handed over in bulk with `jitter=` each run once at theirs."""

import json

from tickwork.model import due_jitter
from tickwork.times import MINUTE, utc

JITTER = 5 * MINUTE
RUNS = "SELECT schedule, due_at, at, tick_at, started_at, outcome FROM tickwork_runs"


def first_tick_past(due: int, name: str, start: int | None = None) -> int:
    """The first of the ticks a minute apart from `start` (the due time) at or past its offset."""
    start = due if start is None else start
    return start + -(-(due + due_jitter(name, due, JITTER) - start) // MINUTE) * MINUTE


def test_a_jittered_calendar_runs_once_at_its_offset_for_its_nominal_moment(host):
    host.tick(utc("2027-01-01 12:00"))
    six = utc("2027-01-02 06:00")
    [row] = host.d1("SELECT due_at, runs_at FROM tickwork_schedules WHERE name = 'spread'")
    assert (row["due_at"], row["runs_at"]) == (six, six + due_jitter("spread", six, JITTER))

    for k in range(6):
        assert host.tick(six + k * MINUTE)["ok"]

    rows = host.d1(f"{RUNS} WHERE schedule = 'spread'")
    assert [(r["due_at"], r["at"], r["tick_at"], r["outcome"]) for r in rows] == [
        (six, six, first_tick_past(six, "spread"), "succeeded")]
    [kept] = host.d1("SELECT due_at, runs_at FROM tickwork_schedules WHERE name = 'spread'")
    after = utc("2028-01-02 06:00")
    assert (kept["due_at"], kept["runs_at"]) == (after, after + due_jitter("spread", after, JITTER))


def test_items_handed_over_in_bulk_with_jitter_each_run_once_at_their_own_offset(host):
    answer = host.fetch("/hand-over-jittered", "POST", json.dumps({"every": "1h", "jitter": "5m", "count": 6}).encode())
    assert answer.status == 201, answer
    ids = answer.json()["ids"]
    rows = host.d1("SELECT name, due_at, runs_at FROM tickwork_schedules WHERE form = 'every 3600000 jitter=300000'")
    due = {r["name"]: r["due_at"] for r in rows}
    assert sorted(due) == sorted(ids)
    assert all(r["runs_at"] == r["due_at"] + due_jitter(r["name"], r["due_at"], JITTER) for r in rows)

    start = min(due.values()) // MINUTE * MINUTE
    for k in range(7):
        assert host.tick(start + k * MINUTE)["ok"]

    ran = host.d1(f"{RUNS} WHERE schedule LIKE 'remember@%'")
    assert sorted((r["schedule"], r["due_at"], r["tick_at"]) for r in ran) == sorted(
        (id, due[id], first_tick_past(due[id], id, start)) for id in ids)
