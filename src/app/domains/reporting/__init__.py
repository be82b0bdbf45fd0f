"""The reporting domain: a calendar in a time zone reading the moment it is for, and a
statement for each customer at nine on Monday in the customer's own zone."""

from tickwork import call, clock, items, schedule
from tickwork.times import DAY, iso

WEEK = 7 * DAY

# The customers and their zones, as the app's own tables would give them.
CUSTOMERS = {"ada": "Europe/London", "grace": "America/New_York", "yukihiro": "Asia/Tokyo"}


async def send_weekly_report():
    """Nine on Monday morning in Berlin (schedules/weekly_report.jadpo). The week is computed from
    `call.at`, never from the clock: a report made twenty minutes late is still Monday nine's."""
    print(f"reporting: the week {iso(call.at - WEEK)} to {iso(call.at)}, made at {clock.now:%H:%M} UTC")


@schedule(every="1h")
async def enroll_customers():
    """Hands over each customer's weekly statement. Handing it over again is harmless: the same
    action, input, timing and expiry give the same schedule, under the same id."""
    for customer, zone in CUSTOMERS.items():
        await items.calendar(send_statement, {"customer": customer}, "0 9 * * 1", zone=zone)


async def send_statement():
    """A customer's statement, for the week up to `call.at`: Monday nine in the customer's zone."""
    print(f"reporting: statement for {call.input['customer']}, the week to {iso(call.at)}")
