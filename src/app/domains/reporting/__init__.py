"""The reporting domain: a calendar in a time zone reading the moment it is for, and a
statement for each customer at nine on Monday in the customer's own zone."""

from tickwork import call, clock, env, items, on_success, schedule, wait_until
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
    """Hands over each customer's weekly statement, all in one statement. Handing it over again
    is harmless: the same action, input, timing and expiry give the same schedule, under the
    same id, so what did not fit the tick's statements (`left_over`) is enrolled next hour.
    The label, no part of the id, says whose statement it is to the operator."""
    await items.hand_over(
        {"action": send_statement, "input": {"customer": customer}, "cron": "0 9 * * 1", "zone": zone,
         "label": customer.capitalize()}  # what `tickwork schedules` shows beside its id
        for customer, zone in CUSTOMERS.items()
    )


async def send_statement():
    """A customer's statement, for the week up to `call.at`: Monday nine in the customer's zone."""
    print(f"reporting: statement for {call.input['customer']}, the week to {iso(call.at)}")


@schedule(every="1h")
async def publish_digest():
    """A var and a secret of the Worker: `env.REPORT_TO` (wrangler.toml's [vars]) and
    `env.REPORTS_TOKEN` (`npx wrangler secret put REPORTS_TOKEN`; for `make dev`, a line of
    .dev.vars), which signs the digest and is never printed. The digest is kept in
    `digests_sent` with the run's end, only if the run succeeds; its delivery is handed to
    `ctx.waitUntil`, to finish after the run."""
    import hashlib
    import hmac

    digest = f"digest to {env.REPORT_TO} as of {iso(clock.now_ms)}"
    token = getattr(env, "REPORTS_TOKEN", None)
    signature = hmac.new(token.encode(), digest.encode(), hashlib.sha256).hexdigest() if token else None
    on_success.write(
        "INSERT INTO digests_sent (at, recipient, signature) VALUES (?1, ?2, ?3) ON CONFLICT (at) DO NOTHING",
        clock.now_ms, env.REPORT_TO, signature,
    )
    wait_until(_deliver(digest, signature))


async def _deliver(digest: str, signature: str | None):
    """Where a real app would send it (`await fetch(...)`); the example says what it would send."""
    signed = f"signed {signature[:12]}..." if signature else "unsigned: no REPORTS_TOKEN secret (see .dev.vars.example)"
    print(f"reporting: {digest}, {signed}")
