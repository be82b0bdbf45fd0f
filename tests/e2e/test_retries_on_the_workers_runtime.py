"""Issue 17's retries on the Workers runtime (Pyodide, Miniflare's D1), ticked by hand: the e2e
domain's `yearly_flaky` (`retry: 2 after 1m`) fails its first attempt and is tried again for
the same due time once its pause has passed. Issue 25's retries that know when to stop: a failure
raised with retry=False is never tried again, and a rule's ceiling (`up to`) stops the pauses
growing, each on a calendar handed over with its rule (POST /hand-over-retrying)."""

import json

from tickwork.times import MINUTE, utc

RUNS = "SELECT due_at, tick_at, at, attempt, outcome, code FROM tickwork_runs WHERE schedule = 'yearly_flaky'"
DUE = utc("2027-01-01 03:00")


def test_a_schedule_with_retries_that_fails_then_succeeds_is_tried_again_after_its_pause(host):
    assert host.tick(utc("2026-12-31 12:00"))["ok"]
    first = host.tick(DUE)
    too_soon = host.tick(utc("2027-01-01 03:00:50"))
    again = host.tick(utc("2027-01-01 03:01"))

    assert [(r["attempt"], r["outcome"]) for r in first["runs"] if r["schedule"] == "yearly_flaky"] == [(1, "failed")]
    assert not [r for r in too_soon["runs"] if r["schedule"] == "yearly_flaky"]
    [retried] = [r for r in again["runs"] if r["schedule"] == "yearly_flaky"]
    assert (retried["attempt"], retried["outcome"], retried["due_at"], retried["at"]) == (2, "succeeded", DUE, DUE)
    rows = host.d1(f"{RUNS} ORDER BY attempt")
    assert [(r["due_at"], r["at"], r["attempt"], r["outcome"]) for r in rows] == [
        (DUE, DUE, 1, "failed"), (DUE, DUE, 2, "succeeded")]
    assert host.d1("SELECT retry_attempt, due_at FROM tickwork_schedules WHERE name = 'yearly_flaky'") == [
        {"retry_attempt": None, "due_at": utc("2028-01-01 03:00")}]


def _handed_over(host, action: str, retry: str) -> tuple[str, int]:
    """A calendar of `action` on 2 January at 03:00, handed over with `retry`: its id and due time."""
    body = json.dumps({"action": action, "cron": "0 3 2 1 *", "retry": retry}).encode()
    answer = host.fetch("/hand-over-retrying", "POST", body)
    assert answer.status == 201, answer
    id = answer.json()["id"]
    [row] = host.d1(f"SELECT due_at FROM tickwork_schedules WHERE name = '{id}'")
    return id, int(row["due_at"])


def _attempts(host, id: str) -> list[tuple]:
    return [(r["attempt"], r["outcome"], r["code"], r["kind"], r["tick_at"] - r["due_at"]) for r in host.d1(
        f"SELECT attempt, outcome, code, kind, tick_at, due_at FROM tickwork_runs WHERE schedule = '{id}' "
        "ORDER BY attempt")]


def test_a_failure_raised_with_retry_false_is_never_tried_again(host):
    id, due = _handed_over(host, "refuses_for_good", "3 after 1m")
    for moment in (due, due + MINUTE, due + 3 * MINUTE, due + 7 * MINUTE):
        assert host.tick(moment)["ok"]
    assert _attempts(host, id) == [(1, "failed", "e2e_invalid", "unretried", 0)]
    assert host.d1(f"SELECT retry_attempt FROM tickwork_schedules WHERE name = '{id}'") == [{"retry_attempt": None}]


def test_pauses_stop_growing_at_the_rules_ceiling(host):
    id, due = _handed_over(host, "unavailable", "4 after 1m up to 2m")
    for minutes in (0, 1, 3, 5, 7):  # without the ceiling the fourth attempt would wait for 7, the fifth for 15
        assert host.tick(due + minutes * MINUTE)["ok"]
    assert _attempts(host, id) == [(k + 1, "failed", "e2e_unavailable", "raised", m * MINUTE)
                                   for k, m in enumerate((0, 1, 3, 5, 7))]


def test_d1_hashes_a_jitters_seed_as_python_does(host):
    from tickwork.model import SEEDS_SQL, seed_of

    names = ["report_eu_daily_x", "report_us_daily_x", "Zürich-täglich", "日次の請求", "unavailable@15db3840bb10e426"]
    given = ", ".join(f"('{name}')" for name in names)
    rows = host.d1(f"WITH RECURSIVE given(name) AS (VALUES {given}), {SEEDS_SQL.format(names='given')} "
                   "SELECT name, seed FROM seeds")
    assert {row["name"]: row["seed"] for row in rows} == {name: seed_of(name) for name in names}
