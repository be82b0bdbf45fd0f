"""`make bench`: what a tick spends on calendars, for 1,000 calendars across 50 zones.

For each calendar found due, a tick works out the one call it owes (the latest occurrence at or
before the tick) and the next due time, once for all calendars of one form and due time. This
measures that work for all 1,000 at once (50 forms), after one minute without ticks and after a
month: the two should cost about the same, since neither walks the occurrences in between.
Prints one JSON line and fails when a tick takes more than GOAL_MS; runs on CPython and, through
the local host, in Pyodide (`python -c` of `main()` there, with Pyodide's own goal).
"""

import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from tickwork.calendars import Calendar, CronCalendar  # noqa: E402
from tickwork.timing import Owing  # noqa: E402
from tickwork.times import DAY, MINUTE, utc  # noqa: E402

ZONES = [
    "UTC", "Europe/Berlin", "Europe/London", "Europe/Paris", "Europe/Madrid", "Europe/Rome",
    "Europe/Warsaw", "Europe/Kyiv", "Europe/Istanbul", "Europe/Moscow", "Europe/Lisbon",
    "Europe/Dublin", "Europe/Helsinki", "Africa/Cairo", "Africa/Lagos", "Africa/Johannesburg",
    "Africa/Nairobi", "Africa/Casablanca", "Asia/Dubai", "Asia/Karachi", "Asia/Kolkata",
    "Asia/Kathmandu", "Asia/Dhaka", "Asia/Bangkok", "Asia/Shanghai", "Asia/Hong_Kong",
    "Asia/Singapore", "Asia/Tokyo", "Asia/Seoul", "Asia/Tehran", "Asia/Jerusalem",
    "Australia/Sydney", "Australia/Adelaide", "Australia/Perth", "Australia/Lord_Howe",
    "Pacific/Auckland", "Pacific/Chatham", "Pacific/Honolulu", "Pacific/Kiritimati",
    "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles",
    "America/Anchorage", "America/Halifax", "America/St_Johns", "America/Sao_Paulo",
    "America/Santiago", "America/Mexico_City", "America/Bogota",
]
EXPRESSIONS = ["*/5 * * * *", "0 9 * * 1", "30 2 * * *", "0 */6 * * *", "15 8 1 * *",
               "0 12 * * 1-5", "45 23 * * 0", "0 0 1 1 *", "*/15 9-17 * * 1-5", "0 3 * * 6"]
TICKS = {
    "ordinary": utc("2026-01-14 10:00"),
    "dst": utc("2026-03-29 01:00"),  # Europe's spring-forward instant: the hardest minute of the year
}


def calendars() -> list[Calendar]:
    return [
        Calendar(CronCalendar(EXPRESSIONS[k % len(EXPRESSIONS)], ZONES[k % len(ZONES)]))
        for k in range(1000)
    ]


def tick_cost(entries: list[Calendar], tick: int, outage: int) -> float:
    """Seconds one tick spends owing and rescheduling every calendar, `outage` after its due time."""
    started = time.perf_counter()
    owing = Owing(tick)  # one tick's: nothing carries over from the round before
    for entry in entries:
        owing.owed(entry, tick - outage)
        owing.following(entry, tick - outage)
    return time.perf_counter() - started


def main(rounds: int = 5) -> dict:
    entries = calendars()
    result = {
        "bench": "calendars_per_tick",
        "python": platform.python_implementation() + " " + platform.python_version(),
        "platform": sys.platform,
        "calendars": len(entries),
        "zones": len(set(ZONES)),
    }
    tick_cost(entries, TICKS["ordinary"], MINUTE)  # load the zones first, as a first tick would
    for label, tick in TICKS.items():
        for outage_label, outage in (("minute", MINUTE), ("month", 30 * DAY)):
            times = [tick_cost(entries, tick, outage) for _ in range(rounds)]
            result[f"{label}_tick_after_a_{outage_label}_ms"] = round(statistics.median(times) * 1000, 1)
    result["month_over_minute"] = round(
        result["ordinary_tick_after_a_month_ms"] / result["ordinary_tick_after_a_minute_ms"], 2
    )
    return result


GOAL_MS = 100  # on CPython, per tick, the DST minute included


def missed(result: dict, goal_ms: float = GOAL_MS) -> list[str]:
    return [key for key, value in result.items() if key.endswith("_ms") and value > goal_ms]


if __name__ == "__main__":
    result = main()
    print(json.dumps(result))
    if missed(result):
        print(f"calendars_per_tick: over the goal of {GOAL_MS} ms: {', '.join(missed(result))}", file=sys.stderr)
        sys.exit(1)
