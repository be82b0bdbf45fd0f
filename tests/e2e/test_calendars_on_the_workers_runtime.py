"""Calendars on the Workers runtime: zones from the vendored tzdata, `call.at` in Pyodide."""

from tickwork.times import utc

CALLS = "SELECT schedule, at, tick_at, outcome, dst FROM tickwork_runs"


def test_a_zoned_calendar_runs_late_with_the_moment_it_was_for(host):
    host.tick(utc("2026-01-04 12:00"))  # a Sunday: Monday nine in Berlin is 08:00 UTC

    tick = host.tick(utc("2026-01-05 08:20"))

    rows = host.d1(f"{CALLS} WHERE schedule = 'weekly_report'")
    assert [(row["at"], row["tick_at"], row["outcome"]) for row in rows] == [
        (utc("2026-01-05 08:00"), utc("2026-01-05 08:20"), "succeeded"),
    ]
    printed = "\n".join(line["line"] for line in tick["lines"])
    assert "reporting: the week 2025-12-29T08:00:00.000Z to 2026-01-05T08:00:00.000Z" in printed


def test_a_repeated_local_time_runs_at_both_instants_under_repeated_both(host):
    host.tick(utc("2026-10-24 12:00"))

    for at in ["2026-10-25 00:30", "2026-10-25 01:00", "2026-10-25 01:30", "2026-10-25 02:00"]:
        assert host.tick(utc(at))["ok"]

    rows = host.d1(f"{CALLS} WHERE schedule = 'nightly' ORDER BY at")
    assert [(row["at"], row["dst"]) for row in rows] == [
        (utc("2026-10-25 00:30"), "repeated_first"),
        (utc("2026-10-25 01:30"), "repeated_second"),
    ]
