"""Calendars on the Workers runtime: zones from the vendored tzdata, `call.at` in Pyodide; skip
dates from a named list, and a grace (`overdue:`) on an `every:` schedule."""

from tickwork.times import DAY, HOUR, utc

CALLS = "SELECT schedule, at, tick_at, outcome, code, detail, dst FROM tickwork_runs"


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


def test_a_calendar_skips_a_date_of_its_named_list_on_the_day_clocks_fall_back(host):
    host.tick(utc("2026-10-31 12:00"))

    assert host.tick(utc("2026-11-01 11:00"))["ok"]  # 06:00 EST, after the clocks fell back
    assert host.tick(utc("2026-11-02 11:00"))["ok"]

    rows = host.d1(f"{CALLS} WHERE schedule = 'opening' ORDER BY at")
    assert [(row["at"], row["outcome"], row["code"], row["detail"]) for row in rows] == [
        (utc("2026-11-01 11:00"), "skipped", "skip_date", "2026-11-01 skipped: holidays"),
        (utc("2026-11-02 11:00"), "succeeded", None, None),
    ]


def test_an_every_schedule_later_than_its_grace_is_skipped_overdue_then_runs_on_time(host):
    first = utc("2026-05-01 12:00")
    host.tick(first)

    assert host.tick(first + 30 * DAY + 2 * HOUR)["ok"]  # two hours late: its grace is one
    assert host.tick(first + 60 * DAY)["ok"]

    rows = host.d1(f"{CALLS} WHERE schedule = 'graced' ORDER BY tick_at")
    assert [(row["outcome"], row["code"]) for row in rows] == [("skipped", "overdue"), ("succeeded", None)]
    assert rows[0]["detail"] == "7200000 ms late; overdue allows 3600000 ms"
