"""The reporting domain: a calendar in a time zone, reading the moment it is for."""

from tickwork import call, clock
from tickwork.times import DAY, iso

WEEK = 7 * DAY


async def send_weekly_report():
    """Nine on Monday morning in Berlin (schedules/weekly_report.jadpo). The week is computed from
    `call.at`, never from the clock: a report made twenty minutes late is still Monday nine's."""
    print(f"reporting: the week {iso(call.at - WEEK)} to {iso(call.at)}, made at {clock.now:%H:%M} UTC")
