"""The health route on the Workers runtime, through the Worker's fetch: read from Miniflare's D1."""

from tickwork.times import DAY, MINUTE, utc

NINE = utc("2026-01-05 09:00")


def test_the_health_route_tells_the_last_tick_and_503_once_ticks_stopped(host):
    assert host.tick(NINE)["ok"]
    assert host.tick(NINE + DAY)["ok"]  # always_fails and refuses, due a day on, fail
    host.d1(f"UPDATE tickwork_app SET last_clock = last_clock - {10 * MINUTE}")  # ten minutes ago on the clock
    answer = host.fetch("/health")
    body = answer.json()
    assert (answer.status, body["ok"], body["last_tick"]) == (503, False, "2026-01-06T09:00:00.000Z")
    assert {"always_fails", "refuses"} <= set(body["failing"])
