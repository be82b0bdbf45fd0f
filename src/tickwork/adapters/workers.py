"""Where tickwork meets the Workers runtime: the façade an app's entry imports.

Its handlers reach D1 and the queues through the SDK's objects in `_d1.py`, and the console
checks Access logins with the Web Crypto of `_webcrypto.py` (the one module that imports `js`);
both are imported at first use, as the handlers' own imports are, so a cold start loads neither.
`D1Database` and `WebCryptoVerifier` are still found here (module `__getattr__`), where the host's
bridge, the benches and apps import them.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, cast

from ..database import PAID_QUERIES, Database
from ..context import in_worker, log, new_trace, running

# The tick, the outbox, consumers, items and health are imported by the handler that first needs
# them, not by the entry: a `fetch` never loads the tick, a tick loads no consumer (docs/explanation/tick.md,
# "Cold start"). On Cloudflare that import is paid once an isolate, at its first such event.
if TYPE_CHECKING:
    from ..app import App
    from ..outbox import Outbox
    from ..per_item import Items
    from ..tick import TickReport
    from ._d1 import D1Database


# D1 takes 1,000 queries an invocation on the Paid plan; the rest is left to the actions.
# An app sets its own with [tool.tickwork] d1_statements_per_tick.
TICK_STATEMENTS = 900
INVOCATION_STATEMENTS = PAID_QUERIES  # what `items(...)` may make in a handler's invocation; 50 on Free


# What the façade hands out from the modules imported at first use: name -> (module, its name there).
_AT_FIRST_USE = {
    "D1Database": ("_d1", "D1Database"),
    "_Queue": ("_d1", "Queue"),
    "_Message": ("_d1", "Message"),
    "WebCryptoVerifier": ("_webcrypto", "WebCryptoVerifier"),
    "KEYS_KEPT_MS": ("_webcrypto", "KEYS_KEPT_MS"),
    "KEYS_REFRESHED_MS": ("_webcrypto", "KEYS_REFRESHED_MS"),
    "KEYS_TIMEOUT_S": ("_webcrypto", "KEYS_TIMEOUT_S"),
}


def __getattr__(name: str):
    """`from tickwork.adapters.workers import D1Database` (or WebCryptoVerifier) imports its module now."""
    if name not in _AT_FIRST_USE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = _AT_FIRST_USE[name]
    return getattr(importlib.import_module(f"{__package__}.{module}"), attribute)


def _database(binding) -> D1Database:
    from ._d1 import D1Database

    return D1Database(binding)


async def run_cron_tick(app: App, env, controller, ctx=None) -> list[TickReport]:
    """A cron trigger's invocation: a tick at `controller.scheduledTime` (epoch ms), and while the
    app has queues bound, one at each 10-second mark of its minute. Its actions read `env` as
    `tickwork.env` and hand work to `ctx` (`self.ctx`) with `tickwork.wait_until`."""
    from ..invocation import cron_invocation

    if app.store is None:
        return []
    db = _database(getattr(env, app.store))
    with in_worker(env, ctx):
        reports = await cron_invocation(
            db, app, int(controller.scheduledTime), clock=_now, sleep=asyncio.sleep,
            cap=app.statements_per_tick or TICK_STATEMENTS, outbox=outbox(app, env, db),
            settings=settings_of(app, env), wakes=wakes_of(app, env), metrics=metrics_of(app, env),
        )
    from ..logs import run_ended
    from ..operating.words import printable  # an app's own code may hold a terminal escape

    for report in reports:
        for run in report.runs:
            run_ended(run, printable(describe(run)), None if run.code is None else printable(run.code))
    return reports


async def run_queue(app: App, env, batch, ctx=None) -> None:
    """The Worker's `queue(batch)`: each message to the consumer the app declares for its queue,
    which reads `env` and `ctx` as a run does."""
    from ..outbox.consumers import consume
    from ._d1 import Message

    if app.wake_queue is not None and batch.queue == app.wake_queue and app.store is not None:
        return await _wake(app, env, batch, ctx)
    consumer = app.consumers.get(batch.queue)
    if consumer is None or app.store is None:
        log.warning("no consumer is declared for queue %s; its messages are retried", batch.queue,
                    extra={"event": "queue_unconsumed"})
        for message in batch.messages:
            message.retry()
        return
    db = _database(getattr(env, app.store))
    messages = [Message(message) for message in batch.messages]
    with in_worker(env, ctx):
        await consume(db, consumer, messages, _now(), outbox(app, env, db), clock=_now)


def metrics_of(app: App, env):
    """The Analytics Engine dataset each run and skip writes a point to, where `[tool.tickwork]
    metrics` names one."""
    return getattr(env, app.metrics, None) if app.metrics else None


def wakes_of(app: App, env):
    """The app's wake queue as its ticks send to it, where `[tool.tickwork] wakes` names one."""
    if app.wakes is None:
        return None
    from ..tick.wakes import Wakes
    from ._d1 import Queue

    return Wakes(Queue(getattr(env, app.wakes)), _now)


async def _wake(app: App, env, batch, ctx) -> None:
    """A batch of the wake queue: one tick, at the latest moment its wakes are for (outbox/wakes.py)."""
    from ..outbox.wakes import consume_wakes
    from ._d1 import Message, Queue

    db = _database(getattr(env, cast(str, app.store)))
    messages = [Message(message) for message in batch.messages]
    with in_worker(env, ctx):
        report = await consume_wakes(
            db, app, messages, queue=Queue(getattr(env, cast(str, app.wakes))), clock=_now, sleep=asyncio.sleep,
            cap=app.statements_per_tick or TICK_STATEMENTS, outbox=outbox(app, env, db), settings=settings_of(app, env),
            metrics=metrics_of(app, env))
    from ..logs import run_ended
    from ..operating.words import printable

    for run in report.runs if report is not None else []:
        run_ended(run, printable(describe(run)), None if run.code is None else printable(run.code))


@asynccontextmanager
async def emitting(app: App, env):
    """For a `fetch` handler: `async with emitting(APP, self.env): await order_placed.emit(...)`
    keeps what was emitted in the outbox when the block ends without raising, then sends it."""
    from ..kinds import Call

    emitted: list = []
    trace = new_trace()
    with running(_now(), Call(), outbox=emitted, trace=trace):
        yield
    if emitted:
        from ..outbox import Outbox
        from ..store.outbox import OutboxStore

        db = _database(getattr(env, cast(str, app.store)))  # None is refused by getattr, as it was
        sender = outbox(app, env, db)
        assert sender is not None  # an event emitted is declared, and the build checks its queue is bound
        rows = sender.rows(emitted, None, "fetch", _now(), trace)
        await db.batch(OutboxStore.emitting(rows))
        await sender.send(Outbox.deliveries(rows), "fetch")


async def health_of(app: App, env, threshold: int | None = None, failing: int | None = None) -> tuple[int, dict]:
    """For a `fetch` that opts in to a health route: `status, body = await health_of(APP, self.env)`
    then `Response.json(body, status=status)`; with `failing=503`, that status too while a
    schedule is failing. Read-only; tells no run's details."""
    from ..operating.health import TICKS_STOPPED_AFTER, health

    threshold = TICKS_STOPPED_AFTER if threshold is None else threshold
    store = cast(str, app.store)  # None is refused by getattr, as it was
    return await health(_database(getattr(env, store)), _now(), threshold, failing, store)


def settings_of(app: App, env) -> dict:
    """The settings the app's purges read, as the Worker's vars give them to this invocation; and
    the Worker's version, where its version-metadata binding is bound, which a deploy's marker keeps
    (tick.reconcile.VERSION)."""
    found = {name: _setting(getattr(env, name, None)) for name in app.settings}
    bound = getattr(env, app.version_metadata, None) if app.version_metadata else None
    if bound is not None:
        found["tickwork:version"] = {part: _setting(getattr(bound, part, None)) for part in ("id", "tag", "timestamp")}
    return found


def _setting(value):
    return value.to_py() if hasattr(value, "to_py") else value


def outbox(app: App, env, db: Database) -> Outbox | None:
    if not app.producers:
        return None
    from ..outbox import Outbox
    from ._d1 import Queue

    queues = {binding: Queue(getattr(env, binding)) for binding in app.producers}
    return Outbox(db, queues, app.consumed_here, _now)


def _now() -> int:
    return int(time.time() * 1000)


def items(app: App, env, statements: int = INVOCATION_STATEMENTS) -> Items:
    """Schedules handed over from a `fetch` or `queue` handler, timed from the wall clock:
    `await items(APP, self.env).calendar(send_statement, {"customer": id}, "0 9 * * 1")`.
    Its calls in bulk make at most `statements` D1 statements in all, the invocation's 1,000 by
    default (pass 50 on the Free plan, less what the handler makes besides), and say what did
    not fit. Inside a run, `tickwork.items` does the same, timed from the tick. With a wake queue,
    a `once` item due before the next minute tick is woken for at its second."""
    from ..per_item import Items

    if app.store is None:
        raise RuntimeError("the app binds no D1 database to keep schedules in")
    db = _database(getattr(env, app.store))
    wakes = wakes_of(app, env)
    if wakes is not None:  # a `once` item due before the next tick is woken for (waking_items.py)
        from ..waking_items import WakingItems

        return WakingItems(db, _now, lambda: statements - db.statements_run, wakes)
    return Items(db, _now, lambda: statements - db.statements_run)


def describe(run) -> str:
    from ..model import what_a_run_did
    from ..times import iso

    took = "" if run.duration_ms is None else f" in {run.duration_ms} ms"
    why = f" ({run.code})" if run.code else ""
    did = what_a_run_did(run.items, run.events)
    why += f", {did}" if did else ""
    trace = "" if run.trace is None else f" [trace {run.trace}]"
    attempt = f" (attempt {run.attempt})" if run.attempt > 1 else ""
    retry = "" if run.next_attempt_at is None else f"; next attempt at {iso(run.next_attempt_at)}"
    if run.kind == "unretried":
        retry += "; not retried: retry=False or the rule's `except` ended its due time's attempts"
    return f"tickwork: {run.schedule} due {iso(run.due_at)}{attempt}: {run.outcome}{why}{took}{retry}{trace}"


# -- the operator's console ---------------------------------------------------------------------

def console_prefix_of(app: App, path: str) -> bool:
    """Whether `path` is under the console's prefix, where the app serves one."""
    prefix = (app.console or {}).get("prefix")
    if not prefix:
        return False
    return path == prefix or path.startswith(prefix + "/")


async def console(app: App, env, request):
    """The console's `Response` to a request under its prefix, or None for any other (and for
    every request while the app serves no console): `Default.fetch` answers that one itself.
    The request must carry a Cloudflare Access JWT for the app's Access application or the
    bearer token the app's `console_token` secret holds. The console is imported only here."""
    from urllib.parse import urlsplit

    if not console_prefix_of(app, urlsplit(request.url).path):
        return None
    from ..console.access import Checked

    settings = app.console or {}  # there is one: the path is under its prefix
    token = _setting(getattr(env, settings["token"], None)) if settings.get("token") else None
    access = Checked(token if isinstance(token, str) and token else None, settings.get("team"),
                     settings.get("aud"), _web_crypto() if settings.get("team") else None)
    return await serve_console(app, env, request, access)


def _web_crypto():
    """The Access login's verifier, imported with its `js` only by a console on an Access team."""
    from ._webcrypto import WebCryptoVerifier

    return WebCryptoVerifier()


async def serve_console(app: App, env, request, access):
    """The console's answer to the Workers `request` with `access`: `Checked` on Cloudflare;
    `tickwork.console.access.LOCAL` from the local host's bridge only (no login)."""
    from dataclasses import replace

    from workers import Response

    from ..console.http import Request
    from ..console.routes import serve

    if app.store is None:
        return Response("the console reads the app's D1 database, and the app binds none\n", status=503,
                        headers={"content-type": "text/plain; charset=utf-8"})
    method = str(getattr(request.method, "value", request.method)).upper()
    plain = Request.of(method, request.url, dict(request.headers.items()))
    if method not in ("GET", "HEAD"):
        plain = replace(plain, read=_body_reader(request))
    answer = await serve(_database(getattr(env, app.store)), app, plain, _now(), access)
    return Response(answer.body, status=answer.status, headers=answer.headers)


def _body_reader(request):
    """The console's reader of a Workers request's body: its stream read only when the console
    asks (once the request is let in), and no further than `most` bytes (None past them)."""

    async def read(most: int) -> bytes | None:
        stream = getattr(request, "body", None)
        if stream is None or not hasattr(stream, "getReader"):  # no body (JavaScript's null)
            return b""
        chunks: list[bytes] = []
        reader, size = stream.getReader(), 0
        while True:
            chunk = await reader.read()
            if chunk.done:
                return b"".join(chunks)
            chunks.append(bytes(chunk.value.to_bytes()))
            size += len(chunks[-1])
            if size > most:
                await reader.cancel()
                return None

    return read


def console_first(app: App):
    """A decorator for `Default.fetch`: requests under the console's prefix go to the console,
    every other to the app's own fetch.

        @console_first(APP)
        async def fetch(self, request): ...
    """
    import functools

    def wrap(fetch):
        @functools.wraps(fetch)
        async def fetch_with_console(self, request):
            answer = await console(app, self.env, request)
            return answer if answer is not None else await fetch(self, request)

        return fetch_with_console

    return wrap
