"""The example app's digest reaches the Worker: the var REPORT_TO and the secret REPORTS_TOKEN
from `tickwork.env`, its row kept with the run's end, its delivery handed to `ctx.waitUntil`.
In a test, `env.given` sets what the Worker would hand over."""

import hashlib
import hmac
import importlib

from helpers import run, ticks

from tickwork import Schedule, env
from tickwork.grid import Every
from tickwork.times import MINUTE, iso, utc

reporting = importlib.import_module("app.domains.reporting")
NINE, TEN = utc("2026-03-02 09:00"), utc("2026-03-02 10:00")


class Ctx:
    def __init__(self):
        self.handed = []

    def waitUntil(self, awaitable):
        self.handed.append(awaitable)


def digests(db):
    return run(db.all("SELECT at, recipient, signature FROM digests_sent"))


def publish(db, **worker):
    ctx = Ctx()
    with env.given(REPORT_TO="sales@example.com", ctx=ctx, **worker):
        ticks(db, [Schedule("publish_digest", Every(60 * MINUTE), reporting.publish_digest)], NINE, TEN)
    return ctx


def test_the_digest_is_signed_with_the_secret_kept_with_its_runs_end_and_delivered_after_it(db):
    ctx = publish(db, REPORTS_TOKEN="s3cret")
    digest = f"digest to sales@example.com as of {iso(TEN)}"
    signature = hmac.new(b"s3cret", digest.encode(), hashlib.sha256).hexdigest()
    assert digests(db) == [{"at": TEN, "recipient": "sales@example.com", "signature": signature}]
    assert len(ctx.handed) == 1


def test_without_the_secret_the_digest_is_kept_unsigned(db):
    publish(db)
    assert digests(db) == [{"at": TEN, "recipient": "sales@example.com", "signature": None}]


def test_the_files_wrangler_reads_local_secrets_from_are_never_committed():
    import subprocess
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    secret_files = [".dev.vars", ".dev.vars.staging", ".env", ".env.local", ".env.staging"]
    ignored = subprocess.run(["git", "check-ignore", "--no-index", *secret_files], cwd=root,
                             capture_output=True, text=True).stdout.split()
    assert ignored == secret_files
    assert subprocess.run(["git", "check-ignore", "-q", "--no-index", ".dev.vars.example"], cwd=root).returncode == 1
