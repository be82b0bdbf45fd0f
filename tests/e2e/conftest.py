"""End-to-end: the real entry, bundled by `wrangler deploy --dry-run`, run by the local Workers
host (the Pyodide wrangler.toml selects, the `workers-runtime-sdk` wrappers, Miniflare's D1).

One host serves the whole session; each test starts from freshly migrated D1 tables. The host
runs a copy of this repository's Worker with one extra domain (`e2e`) whose actions fail, and
with a queue and a `fetch` the example app does not have: the copy's wrangler.toml binds the
producer `EVENTS` and consumes that queue (and its dead-letter queue), and its entry subclasses
`Default` with `fetch` and `queue` handlers that record every message they see in D1. Its
pyproject.toml names the producer `ALERTS` as tickwork's alerts queue, which the entry's queue
handler consumes as an app's own consumer would, recording each alert in `e2e_seen`.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRANGLER = ROOT / "node_modules" / ".bin" / "wrangler"
HOST = ROOT / "scripts" / "host" / "cli.mjs"
QUIET = {
    "WRANGLER_SEND_METRICS": "false",
    "WRANGLER_SEND_ERROR_REPORTS": "false",
    "WRANGLER_HIDE_BANNER": "true",
    "NO_COLOR": "1",
}

E2E_DOMAIN = '''\
"""Actions that fail on purpose, for the end-to-end tests."""

from tickwork import ActionError, calendar, call, consumer, event, handled, schedule


@schedule(every="1d")
async def always_fails():
    raise ValueError("the e2e action fails on purpose")


@schedule(every="1d")
async def refuses():
    raise ActionError("e2e_unavailable", "the e2e action refuses on purpose")


@calendar("30 2 * * *", zone="Europe/Berlin", repeated="both")
async def nightly():
    print(f"e2e: nightly for {call.at}")


@calendar("0 3 1 1 *", retry="2 after 1m")
async def yearly_flaky():
    """Fails its first attempt, then succeeds: tried again for the same `call.at` a minute on."""
    failed = await ENV.DB.prepare(
        "SELECT COUNT(*) AS n FROM tickwork_runs WHERE schedule = 'yearly_flaky' AND outcome = 'failed'").first("n")
    if not failed:
        raise RuntimeError("the e2e action fails its first attempt on purpose")
    print(f"e2e: yearly_flaky succeeded for {call.at}")


@calendar("0 6 2 1 *", jitter="5m")
async def spread():
    """Jittered: runs its offset after 06:00 on 2 January, for that nominal `call.at`."""
    print(f"e2e: spread for {call.at}")


async def refuses_for_good():
    """Handed over by POST /hand-over-retrying: a failure that will not heal, never retried."""
    raise ActionError("e2e_invalid", "the e2e action's input is invalid on purpose", retry=False)


async def unavailable():
    """Handed over by POST /hand-over-retrying: fails every attempt, for a rule's ceiling."""
    raise ActionError("e2e_unavailable", "the e2e action is unavailable on purpose")


async def overlapping():
    """Handed over by POST /hand-over-overlapping: a run that takes `sleep` seconds, long enough
    for a tick meanwhile to find it going."""
    import asyncio

    await asyncio.sleep(call.input["sleep"])


async def remember():
    """Handed over at run time (POST /hand-over): one call per item."""
    print(f"e2e: remember {call.input['order']} at {call.at}")


shipped = event("shipped", queue="OUTBOX")


async def ship_orders():
    """Handed over by POST /ship: emits each order, then fails if told to."""
    for order in call.input["orders"]:
        await shipped.emit(order)
    if call.input.get("fail"):
        raise RuntimeError("the e2e run fails after emitting, on purpose")


@consumer("tickwork-e2e-outbox")  # E2E_OUTBOX_QUEUE
async def on_shipped():
    """Records each shipment with its handled record; raises for an order that says so."""
    order = call.input
    handled.write("INSERT INTO e2e_shipped (tag, n) VALUES (?1, ?2)", order["tag"], order.get("n", 0))
    if order.get("raise"):
        raise RuntimeError(f"the e2e consumer fails on purpose for {order['tag']}")


# The Worker's env, set by the e2e entry's scheduled(): for d1_storm, which uses D1 itself.
ENV = None
STORM_EPOCH_MS = 1767600000000


async def storm(db, tag, n):
    """`n` D1 statements into e2e_storm, each prepared and bound on its own: a fifth awaited one
    by one (run, all, first and raw in turn), the rest in batches of 100. Returns what came back
    wrong, if anything."""
    insert = "INSERT INTO e2e_storm (tag, k, value) VALUES (?1, ?2, ?3)"
    wrong = []
    single = n // 5
    for k in range(single):
        value = STORM_EPOCH_MS + k
        statement = db.prepare(insert + ("" if k % 4 == 0 else " RETURNING k, value")).bind(tag, k, value)
        if k % 4 == 0:
            got = (await statement.run()).meta.changes
            want = 1
        elif k % 4 == 1:
            got = [dict(row) for row in (await statement.all()).results]
            want = [{"k": k, "value": value}]
        elif k % 4 == 2:
            got = await statement.first("value")
            want = value
        else:
            got = await statement.raw()
            want = [[k, value]]
        if got != want:
            wrong.append([k, repr(got)])
    for start in range(single, n, 100):
        keys = range(start, min(start + 100, n))
        results = await db.batch(
            [db.prepare(insert + " RETURNING k").bind(tag, k, STORM_EPOCH_MS + k) for k in keys]
        )
        for k, result in zip(keys, results, strict=True):
            got = [dict(row) for row in result.results]
            if got != [{"k": k}]:
                wrong.append([k, repr(got)])
    return wrong


async def d1_storm():
    """Handed over at run time (POST /d1/storm?at=...): a storm of D1 statements inside a tick."""
    wrong = await storm(ENV.DB, call.input["tag"], call.input["n"])
    if wrong:
        raise ValueError(f"D1 answered wrong: {wrong[:5]}")
    print(f"e2e: d1 storm {call.input['tag']} of {call.input['n']} statements")


@calendar("0 6 1,2 11 *", zone="America/New_York", skip=["holidays"])
async def opening():
    """Skips 2026-11-01, a date of the named list `holidays` ([tool.tickwork.dates]), the day
    New York's clocks fall back."""
    print(f"e2e: opening for {call.at}")


@schedule(every="30d", overdue="1h")
async def graced():
    print("e2e: graced ran")


@schedule(every="1d", name="limited_first", concurrency=1)
@schedule(every="1d", name="limited_second", concurrency=1)
async def limited():
    """Two schedules of one action, `concurrency: 1`: at most one of its runs at once (each midnight UTC;
    calendars of one action due at one moment make one call anyway)."""
    print(f"e2e: limited for {call.at}")
'''

# The named list of skip dates the e2e domain's `opening` names.
E2E_DATES_TOML = """
[tool.tickwork.dates]
holidays = [2026-11-01, 2026-12-25]
"""


# The example app's secret, as `make dev` reads it from the project's .dev.vars.
E2E_REPORTS_TOKEN = "e2e-reports-token"

# The copy serves the operator's console under /ops: to the bearer token kept in .dev.vars, and
# to Cloudflare Access logins of the team `e2e` for the application E2E_CONSOLE_AUD.
E2E_CONSOLE_TOKEN = "e2e-console-token"
E2E_CONSOLE_AUD = "e2e0a11ce0a11ce0a11ce0a11ce0a11c"
E2E_CONSOLE_TOML = f'''console = "/ops"
console_token = "CONSOLE_TOKEN"
console_team = "e2e"
console_aud = "{E2E_CONSOLE_AUD}"
'''

E2E_QUEUE = "tickwork-e2e"
E2E_DEAD_LETTERS = "tickwork-e2e-dead"
E2E_MAX_RETRIES = 2
E2E_OUTBOX_QUEUE = "tickwork-e2e-outbox"
E2E_OUTBOX_MAX_RETRIES = 1
E2E_ALERTS_QUEUE = "tickwork-e2e-alerts"

# The metrics dataset (docs: how-to/metrics.md), which the host keeps in memory.
E2E_METRICS_TOML = '''
[[analytics_engine_datasets]]
binding = "TICKWORK_METRICS"
dataset = "tickwork"
'''

E2E_QUEUES_TOML = f'''
# The end-to-end tests' queue: the Worker sends to it (POST /send) and consumes it.
[[queues.producers]]
binding = "EVENTS"
queue = "{E2E_QUEUE}"

[[queues.consumers]]
queue = "{E2E_QUEUE}"
max_batch_size = 5
max_batch_timeout = 1
max_retries = {E2E_MAX_RETRIES}
dead_letter_queue = "{E2E_DEAD_LETTERS}"

[[queues.consumers]]
queue = "{E2E_DEAD_LETTERS}"
max_batch_size = 5
max_batch_timeout = 1
max_retries = 0

# tickwork's outbox: the e2e domain's event `shipped` goes out through OUTBOX; its consumer is
# the e2e domain's `on_shipped`, reached through tickwork's own queue handler.
[[queues.producers]]
binding = "OUTBOX"
queue = "{E2E_OUTBOX_QUEUE}"

[[queues.consumers]]
queue = "{E2E_OUTBOX_QUEUE}"
max_batch_size = 10
max_batch_timeout = 1
max_retries = {E2E_OUTBOX_MAX_RETRIES}

# tickwork's alerts ([tool.tickwork] alerts = "ALERTS"), consumed by the entry's own handler.
[[queues.producers]]
binding = "ALERTS"
queue = "{E2E_ALERTS_QUEUE}"

[[queues.consumers]]
queue = "{E2E_ALERTS_QUEUE}"
max_batch_size = 10
max_batch_timeout = 1
max_retries = 0
'''

E2E_MIGRATION = """\
-- What the end-to-end tests' queue handler saw: one row per message per delivery.
CREATE TABLE e2e_seen (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    queue TEXT NOT NULL,
    message_id TEXT NOT NULL,
    tag TEXT,
    action TEXT,
    attempts INTEGER NOT NULL,
    body TEXT NOT NULL,
    seen_at INTEGER NOT NULL
);

-- What the outbox's consumer wrote, with its handled record.
CREATE TABLE e2e_shipped (tag TEXT NOT NULL, n INTEGER NOT NULL);
-- What the end-to-end D1 tests write: storms of statements, and values sent through bind().
CREATE TABLE e2e_storm (tag TEXT NOT NULL, k INTEGER NOT NULL, value, PRIMARY KEY (tag, k));
CREATE TABLE e2e_values (id INTEGER PRIMARY KEY, value);
"""

E2E_ENTRY = f'''

# --- Added by the end-to-end tests: a fetch and a queue handler on top of the app's Default. ---
import json as _json
import time as _time
from urllib.parse import parse_qs as _parse_qs, urlparse as _urlparse

from workers import Response as _Response

from tickwork.adapters.workers import console_first as _console_first

_E2E_QUEUE = "{E2E_QUEUE}"


class Default(Default):
    @_console_first(APP)
    async def fetch(self, request):
        url = _urlparse(request.url)
        query = {{key: values[-1] for key, values in _parse_qs(url.query).items()}}
        if request.method == "GET" and url.path == "/hello":
            name = query.get("name", "stranger")
            return _Response(
                f"hello, {{name}}", status=200,
                headers={{"content-type": "text/plain; charset=utf-8", "x-e2e": "hello"}},
            )
        if request.method == "POST" and url.path == "/echo":
            text = await request.text()
            return _Response.json(
                {{"method": request.method, "text": text,
                  "header": request.headers.get("x-e2e-in"), "query": query}},
                status=201,
            )
        if request.method == "POST" and url.path == "/send":
            bodies = _json.loads(await request.text())
            if len(bodies) == 1:
                await self.env.EVENTS.send(bodies[0])
            else:
                await self.env.EVENTS.sendBatch([{{"body": body}} for body in bodies])
            return _Response.json({{"sent": len(bodies)}}, status=202)
        if request.method == "GET" and url.path == "/seen":
            rows = await self.env.DB.prepare(
                "SELECT queue, message_id, tag, action, attempts, body FROM e2e_seen "
                "WHERE tag = ?1 ORDER BY id"
            ).bind(query.get("tag")).all()
            return _Response.json([dict(row) for row in rows.results])
        if request.method == "POST" and url.path == "/hand-over":
            from app.domains.e2e import remember
            from tickwork.adapters.workers import items

            handed = items(APP, self.env)
            orders = _json.loads(await request.text())
            ids = [await handed.once(remember, {{"order": order["order"]}}, order["at"], label=order.get("label"))
                   for order in orders]
            return _Response.json({{"ids": ids}}, status=201)
        if request.method == "POST" and url.path == "/hand-over-many":
            # {{"count", "at", "statements"}}: `count` orders at `at`, in bulk, within `statements`.
            from app.domains.e2e import remember
            from tickwork.adapters.workers import items

            asked = _json.loads(await request.text())
            handed = items(APP, self.env, statements=asked["statements"])
            done = await handed.once_many(remember, [{{"order": k}} for k in range(asked["count"])], asked["at"])
            return _Response.json({{"ids": done.ids, "left_over": len(done.left_over),
                                   "statements": handed.store.db.statements_run}}, status=201)
        if request.method == "POST" and url.path == "/hand-over-limited":
            # {{"count", "at", "key", "limit"}}: `count` orders at `at`, at most `limit` at once of `key`.
            from app.domains.e2e import remember
            from tickwork.adapters.workers import items

            asked = _json.loads(await request.text())
            done = await items(APP, self.env).once_many(remember, [{{"order": k}} for k in range(asked["count"])],
                                                        asked["at"], concurrency=(asked["key"], asked["limit"]))
            return _Response.json({{"ids": done.ids}}, status=201)
        if request.method == "POST" and url.path == "/cancel-many":
            from tickwork.adapters.workers import items

            asked = _json.loads(await request.text())
            handed = items(APP, self.env, statements=asked["statements"])
            done = await handed.cancel_many(asked["ids"])
            return _Response.json({{"cancelled": len(done.ids), "left_over": len(done.left_over),
                                   "statements": handed.store.db.statements_run}})
        if request.method == "POST" and url.path == "/hand-over-overlapping":
            # {{"every", "overlap", "sleep"}}: one `every` of a run that takes `sleep` s, with its overlap rule.
            from app.domains.e2e import overlapping
            from tickwork.adapters.workers import items

            asked = _json.loads(await request.text())
            id = await items(APP, self.env).every(overlapping, {{"sleep": asked["sleep"]}}, asked["every"],
                                                  overlap=asked["overlap"])
            return _Response.json({{"id": id}}, status=201)
        if request.method == "POST" and url.path == "/hand-over-retrying":
            # {{"action", "cron", "retry"}}: one calendar of an action that fails, with its retry rule.
            from app.domains import e2e
            from tickwork.adapters.workers import items

            asked = _json.loads(await request.text())
            id = await items(APP, self.env).calendar(getattr(e2e, asked["action"]), {{}}, asked["cron"],
                                                     retry=asked["retry"])
            return _Response.json({{"id": id}}, status=201)
        if request.method == "POST" and url.path == "/hand-over-jittered":
            # {{"every", "jitter", "count"}}: `count` items of `remember` every `every`, jittered, in bulk.
            from app.domains.e2e import remember
            from tickwork.adapters.workers import items

            asked = _json.loads(await request.text())
            done = await items(APP, self.env).every_many(remember, [{{"order": k}} for k in range(asked["count"])],
                                                         asked["every"], jitter=asked["jitter"])
            return _Response.json({{"ids": done.ids}}, status=201)
        if request.method == "POST" and url.path in ("/replace", "/hand-over-every"):
            # {{"order", "every", "starts", "times"}} and, to replace, {{"old"}}: the order's schedule
            # every `every` ms from `starts`, `times` calls; a refusal answers its code.
            from app.domains.e2e import remember
            from tickwork import ScheduleError
            from tickwork.adapters.workers import items

            asked = _json.loads(await request.text())
            timing = {{"every": asked["every"], "starts": asked.get("starts"), "times": asked.get("times")}}
            handed = items(APP, self.env)
            try:
                if url.path == "/replace":
                    id = await handed.replace(asked["old"], remember, {{"order": asked["order"]}}, **timing)
                else:
                    id = await handed.every(remember, {{"order": asked["order"]}}, **timing)
            except ScheduleError as error:
                return _Response.json({{"code": error.code}}, status=409)
            return _Response.json({{"id": id}}, status=201)
        if request.method == "POST" and url.path == "/ship":
            from app.domains.e2e import ship_orders
            from tickwork.adapters.workers import items

            order = _json.loads(await request.text())
            id = await items(APP, self.env).once(ship_orders, order["input"], order["at"])
            return _Response.json({{"id": id}}, status=201)
        if request.method == "POST" and url.path == "/send-outbox":
            await self.env.OUTBOX.sendBatch([{{"body": body}} for body in _json.loads(await request.text())])
            return _Response.json({{"sent": True}}, status=202)
        if request.method == "POST" and url.path == "/cancel":
            from tickwork.adapters.workers import items

            return _Response.json({{"cancelled": await items(APP, self.env).cancel(await request.text())}})
        if request.method == "POST" and url.path == "/d1/storm":
            # ?n=N statements now, from this request; with &at=MS, handed over to the tick at MS.
            from app.domains.e2e import d1_storm, storm

            n, tag = int(query["n"]), query["tag"]
            if "at" in query:
                from tickwork.adapters.workers import items

                handed = items(APP, self.env)
                id = await handed.once(d1_storm, {{"tag": tag, "n": n}}, int(query["at"]))
                return _Response.json({{"id": id}}, status=201)
            return _Response.json({{"statements": n, "wrong": await storm(self.env.DB, tag, n)}})
        if request.method == "POST" and url.path == "/d1/values":
            return _Response.json(await _d1_values(self.env.DB, _json.loads(await request.text())))
        if request.method == "POST" and url.path == "/d1/failures":
            return _Response.json(await _d1_failures(self.env.DB))
        if url.path == "/health":
            from tickwork.adapters.workers import health_of

            status, body = await health_of(
                APP, self.env, **{{key: int(value) for key, value in query.items() if key in ("threshold", "failing")}})
            return _Response.json(body, status=status)
        if url.path == "/fail":
            raise RuntimeError("the e2e fetch fails on purpose")
        if request.method == "POST" and url.path == "/e2e/access-keys":
            # The Access team's keys, held as if fetched from its certs URL (offline here).
            from tickwork.adapters.workers import WebCryptoVerifier, _now

            asked = _json.loads(await request.text())
            WebCryptoVerifier._keys[asked["url"]] = (_now(), asked["keys"])
            return _Response.json({{"held": len(asked["keys"])}})
        return _Response("no such page", status=404)

    async def scheduled(self, controller, env=None, ctx=None):
        import app.domains.e2e as _e2e

        _e2e.ENV = self.env
        await super().scheduled(controller, env, ctx)

    async def queue(self, batch, env=None, ctx=None):
        """Body {{"do": ..., "tag": ...}}: "ack" acks the message, "retry" retries it, "raise"
        makes the whole batch fail after every message is recorded; anything else is left to
        the batch's outcome. The dead-letter queue's messages are only recorded. The queues of
        tickwork's own consumers go to the app's handler."""
        if batch.queue not in (_E2E_QUEUE, "{E2E_DEAD_LETTERS}", "{E2E_ALERTS_QUEUE}"):
            return await super().queue(batch, env, ctx)
        fail = False
        for message in batch.messages:
            body = message.body
            if batch.queue == "{E2E_ALERTS_QUEUE}":  # tagged by the alert's event
                body, action = {{"tag": body["event"], "alert": body.to_py() if hasattr(body, "to_py") else body}}, "alert"
            else:
                action = body["do"] if batch.queue == _E2E_QUEUE else "dead"
            await self.env.DB.prepare(
                "INSERT INTO e2e_seen (queue, message_id, tag, action, attempts, body, seen_at) "
                "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
            ).bind(
                batch.queue, message.id, body["tag"], action, message.attempts,
                _json.dumps(dict(body), sort_keys=True), int(_time.time() * 1000),
            ).run()
            if action == "ack":
                message.ack()
            elif action == "retry":
                message.retry()
            elif action == "raise":
                fail = True
        if fail:
            raise RuntimeError("the e2e batch fails on purpose")


async def _d1_values(db, values):
    """Each value bound, stored in e2e_values and read back: [type, value, SQLite's typeof,
    SQLite's length] as Python sees them, or ["error", what the bind or the write raised]."""
    answers = []
    for id, value in enumerate(values):
        if isinstance(value, dict) and "bytes" in value:
            value = bytes(value["bytes"])
        try:
            await db.prepare("INSERT INTO e2e_values (id, value) VALUES (?1, ?2)").bind(id, value).run()
        except Exception as error:
            answers.append(["error", f"{{type(error).__name__}}: {{error}}"])
            continue
        row = await db.prepare(
            "SELECT value, typeof(value) AS type, length(value) AS length FROM e2e_values WHERE id = ?1"
        ).bind(id).first()
        got = row["value"]
        got = list(got) if not isinstance(got, (int, float, str, type(None))) else got
        answers.append([type(got).__name__, got, row["type"], row["length"]])
    return answers


async def _d1_failures(db):
    """What Python sees of D1's errors: a batch whose second statement fails (and what it left
    behind), a statement on a missing table, first() of a missing column."""
    insert = "INSERT INTO e2e_values (id, value) VALUES (?1, ?2)"

    async def error_of(awaitable):
        try:
            await awaitable
        except Exception as error:
            return f"{{type(error).__name__}}: {{error}}"
        return None

    seen = {{}}
    seen["batch"] = await error_of(db.batch([
        db.prepare(insert).bind(1001, "first"), db.prepare(insert).bind(1001, "again"),
        db.prepare(insert).bind(1002, "third"),
    ]))
    rows = await db.prepare("SELECT id, value FROM e2e_values WHERE id > 1000 ORDER BY id").all()
    seen["after_batch"] = [dict(row) for row in rows.results]
    seen["statement"] = await error_of(db.prepare("SELECT * FROM e2e_no_such_table").all())
    seen["column"] = await error_of(db.prepare("SELECT 1 AS one").first("two"))
    done = await db.batch([db.prepare(insert).bind(1003, "after"), db.prepare("SELECT COUNT(*) AS n FROM e2e_values")])
    seen["batch_after"] = [dict(row) for row in done[1].results]
    return seen
'''


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "e2e: runs the bundled Worker on the local Workers host (Pyodide + Miniflare)"
    )


# An e2e test's set-up builds a wheel, a virtualenv, npm packages or a bundle and starts Pyodide:
# 35 s for the slowest at load 2, some 5 min at load 20 on 2 cores. pyproject's 120 s dumped the
# threads of tests that then passed; 10 min is over any such run and still tells a real hang.
E2E_FAULTHANDLER_TIMEOUT = 600


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.e2e)
            if item.get_closest_marker("faulthandler_timeout") is None:
                item.add_marker(pytest.mark.faulthandler_timeout(E2E_FAULTHANDLER_TIMEOUT))


def _env():
    return {**os.environ, **QUIET}


def _without_build_command(wrangler_toml: str) -> str:
    """The copy is built by the fixture itself; wrangler's `[build] command` (make build) would
    look for this repository's Makefile."""
    kept, skipping = [], False
    for line in wrangler_toml.splitlines():
        if re.match(r"^\s*\[", line):
            skipping = line.strip() == "[build]"
        if not skipping:
            kept.append(line)
    return "\n".join(kept) + "\n"


def make_project(directory: Path) -> Path:
    """A copy of the example project with the `e2e` domain, built and bundled."""
    for name in ("src", "migrations"):
        shutil.copytree(ROOT / name, directory / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "python_modules", directory / "python_modules", symlinks=False)
    pyproject = (ROOT / "pyproject.toml").read_text()
    (directory / "pyproject.toml").write_text(pyproject.replace("[tool.tickwork]\n", '[tool.tickwork]\nalerts = "ALERTS"\n', 1)
                                              + E2E_DATES_TOML)
    wrangler_toml = _without_build_command((ROOT / "wrangler.toml").read_text())
    (directory / "wrangler.toml").write_text(wrangler_toml + E2E_QUEUES_TOML + E2E_METRICS_TOML)
    (directory / "migrations" / "9000_e2e_seen.sql").write_text(E2E_MIGRATION)
    (directory / ".dev.vars").write_text(f"REPORTS_TOKEN={E2E_REPORTS_TOKEN}\nCONSOLE_TOKEN={E2E_CONSOLE_TOKEN}\n")
    pyproject = directory / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("[tool.tickwork]\n", "[tool.tickwork]\n" + E2E_CONSOLE_TOML
                                                       + 'metrics = "TICKWORK_METRICS"\n', 1))
    with (directory / "src" / "entry.py").open("a") as entry:
        entry.write(E2E_ENTRY)
    domain = directory / "src" / "app" / "domains" / "e2e"
    domain.mkdir()
    (domain / "__init__.py").write_text(E2E_DOMAIN)
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build.py"), str(directory)],
        check=True, capture_output=True, text=True,
    )
    dry_run(directory, directory / "build" / "worker")
    return directory


def dry_run(project: Path, outdir: Path) -> None:
    done = subprocess.run(
        [str(WRANGLER), "deploy", "--dry-run", "--outdir", str(outdir)],
        cwd=project, env=_env(), capture_output=True, text=True,
    )
    assert done.returncode == 0, f"wrangler deploy --dry-run failed:\n{done.stdout}\n{done.stderr}"


def _lower(headers) -> dict:
    return {name.lower(): value for name, value in headers.items()}


@dataclass
class Fetched:
    """A response of the Worker's `fetch`; header names in lower case."""

    status: int
    headers: dict
    text: str

    def json(self):
        return json.loads(self.text)


@dataclass
class LocalHost:
    """The host process, and D1 as `wrangler d1 execute --local` sees it."""

    project: Path
    state: Path
    url: str
    process: subprocess.Popen
    output: list[str] = field(default_factory=list)
    queue = E2E_QUEUE
    dead_letters = E2E_DEAD_LETTERS
    max_retries = E2E_MAX_RETRIES

    def _call(self, path: str, method: str = "GET", timeout: float = 120) -> dict:
        request = urllib.request.Request(
            self.url + path, method=method, headers={"accept": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            return json.load(error)

    def fetch(self, path: str, method: str = "GET", body: bytes | None = None,
              headers: dict | None = None) -> "Fetched":
        """One request to the Worker's `fetch` over the host's HTTP port."""
        request = urllib.request.Request(self.url + path, data=body, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return Fetched(response.status, _lower(response.headers), response.read().decode())
        except urllib.error.HTTPError as error:
            return Fetched(error.code, _lower(error.headers), error.read().decode())

    def send(self, *bodies: dict) -> None:
        """The Worker sends `bodies` to its queue: one `send`, or one `sendBatch` of several."""
        sent = self.fetch("/send", "POST", json.dumps(bodies).encode())
        assert (sent.status, sent.json()) == (202, {"sent": len(bodies)}), sent

    def seen(self, tag: str) -> list[dict]:
        """What the Worker's queue handler recorded for messages tagged `tag`, in order."""
        answer = self.fetch("/seen?" + urllib.parse.urlencode({"tag": tag}))
        assert answer.status == 200, answer
        return answer.json()

    def printed(self, *texts: str, since: int = 0, timeout: float = 10) -> str:
        """The host's output once it holds every one of `texts`: it is read on another thread,
        so a line may arrive just after the answer that caused it."""
        deadline = time.monotonic() + timeout
        while True:
            printed = "".join(self.output[since:])
            if all(text in printed for text in texts) or time.monotonic() > deadline:
                return printed
            time.sleep(0.05)

    def wait_for_seen(self, tag: str, done, what: str, timeout: float = 30) -> list[dict]:
        """Polls `seen(tag)` until `done(rows)`; fails with the rows and the host's output."""
        deadline = time.monotonic() + timeout
        while True:
            rows = self.seen(tag)
            if done(rows):
                return rows
            if time.monotonic() > deadline:
                printed = "".join(self.output[-40:])
                pytest.fail(
                    f"after {timeout:.0f} s, still waiting for {what}; the queue handler saw "
                    f"{json.dumps(rows, indent=1)}\nlast lines of the host:\n{printed}"
                )
            time.sleep(0.2)

    def tick(self, time_ms: int, cron: str = "* * * * *") -> dict:
        """One scheduled event: `{"ok", "runs", "lines", "error"?}`. `far=1`: the tests' times
        may be more than a day from the clock."""
        query = urllib.parse.urlencode({"cron": cron, "time": time_ms, "far": 1})
        return self._call(f"/cdn-cgi/handler/scheduled?{query}")

    def reset(self) -> dict:
        return self._call("/cdn-cgi/tickwork/reset", method="POST")

    def modules(self) -> dict:
        return self._call("/cdn-cgi/tickwork/modules")

    def metrics(self) -> list[dict]:
        """The data points the Worker wrote to its Analytics Engine dataset, in order."""
        return self._call("/cdn-cgi/tickwork/metrics")["TICKWORK_METRICS"]

    def d1(self, sql: str) -> list[dict]:
        """Rows of one query, through `wrangler d1 execute --local --json`."""
        done = subprocess.run(
            [str(WRANGLER), "d1", "execute", "DB", "--local", "--persist-to", str(self.state),
             "--json", "--command", sql],
            cwd=self.project, env=_env(), capture_output=True, text=True,
        )
        assert done.returncode == 0, f"wrangler d1 execute failed:\n{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout)[-1]["results"]

    def dry_run(self, outdir: Path) -> None:
        """`wrangler deploy --dry-run --outdir` of the project the host runs."""
        dry_run(self.project, outdir)

    def run_host(self, *args: str) -> subprocess.CompletedProcess:
        """Another host process on the same D1 state (unless `args` name another: the last flag
        given wins), e.g. a one-shot `tick`, which a `dev` running on that state makes itself."""
        return subprocess.run(
            ["node", str(HOST), "--config", str(self.project / "wrangler.toml"),
             "--bundle", str(self.project / "build" / "worker"), "--persist-to", str(self.state), *args],
            cwd=self.project, env=_env(), capture_output=True, text=True, timeout=180,
        )


@contextmanager
def running_host(project: Path, config: Path | None = None, state: Path | None = None, timer: bool = False):
    """`node cli.mjs dev` on `project`'s bundle, with `config` (project/wrangler.toml unless
    given) and its D1 state in `state` (project/state), until the block ends; ticking by itself
    with `timer`."""
    config = config or project / "wrangler.toml"
    state = state or project / "state"
    process = subprocess.Popen(
        ["node", str(HOST), "dev", *([] if timer else ["--no-timer"]), "--port", "0",
         "--config", str(config), "--bundle", str(project / "build" / "worker"),
         "--persist-to", str(state)],
        cwd=project, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    output: list[str] = []
    url = None
    for line in process.stdout:
        output.append(line)
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            url = found.group(1)
            break
    if url is None:
        process.wait(timeout=30)
        pytest.fail("the host did not start:\n" + "".join(output))
    threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
    try:
        yield LocalHost(project, state, url, process, output)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()


@pytest.fixture(scope="session")
def host(tmp_path_factory):
    with running_host(make_project(tmp_path_factory.mktemp("project"))) as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_d1(request):
    """Fresh D1 tables for each test that uses the host."""
    if "host" in request.fixturenames:
        request.getfixturevalue("host").reset()
    yield
