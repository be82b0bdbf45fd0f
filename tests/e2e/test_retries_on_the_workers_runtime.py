"""Issue 17's retries on the Workers runtime (Pyodide, Miniflare's D1), ticked by hand: the e2e
domain's `yearly_flaky` (`retry: 2 after 1m`) fails its first attempt and is tried again for
the same due time once its pause has passed."""

from tickwork.times import utc

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
