"""Where tickwork meets the Workers runtime: D1 through the `workers-runtime-sdk` bindings.

Under compat date >= 2026-04-21 the SDK wraps `self.env`: a D1 binding's results arrive as dicts
and `None` binds as NULL. Nothing here imports `js` or `pyodide` (the SDK does that for us) but
the console's Web Crypto verifier, at the first Access login it checks.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Sequence

from ..database import PAID_QUERIES, Database, Params, Row, Statement
from ..context import in_worker, new_trace, running

# The tick, the outbox, consumers, items and health are imported by the handler that first needs
# them, not by the entry: a `fetch` never loads the tick, a tick loads no consumer (README, "Cold
# start"). On Cloudflare that import is paid once an isolate, at its first such event.
if TYPE_CHECKING:
    from ..app import App
    from ..outbox import Outbox
    from ..per_item import Items
    from ..tick import TickReport


# D1 takes 1,000 queries an invocation on the Paid plan; the rest is left to the actions.
# An app sets its own with [tool.tickwork] d1_statements_per_tick.
TICK_STATEMENTS = 900
INVOCATION_STATEMENTS = PAID_QUERIES  # what `items(...)` may make in a handler's invocation; 50 on Free


class D1Database(Database):
    def __init__(self, binding):
        self._binding = binding
        self.statements_run = 0
        self.round_trips = 0
        self.rows_written = 0
        self.rows_read = 0

    def _prepare(self, sql: str, params: Params):
        statement = self._binding.prepare(sql)
        return statement.bind(*params) if params else statement

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        self.statements_run += 1
        self.round_trips += 1
        result = await self._prepare(sql, params).all()
        return self._rows(result)

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        self.statements_run += len(statements)
        self.round_trips += 1
        results = await self._binding.batch([self._prepare(sql, p) for sql, p in statements])
        return [self._rows(result) for result in results]

    def _rows(self, result) -> list[Row]:
        meta = result.get("meta") or {}
        self.rows_read += int(meta.get("rows_read") or 0)
        self.rows_written += int(meta.get("rows_written") or 0)
        return [dict(row) for row in (result["results"] or [])]


async def run_cron_tick(app: App, env, controller, ctx=None) -> list[TickReport]:
    """A cron trigger's invocation: a tick at `controller.scheduledTime` (epoch ms), and while the
    app has queues bound, one at each 10-second mark of its minute. Its actions read `env` as
    `tickwork.env` and hand work to `ctx` (`self.ctx`) with `tickwork.wait_until`."""
    from ..invocation import cron_invocation

    if app.store is None:
        return []
    db = D1Database(getattr(env, app.store))
    with in_worker(env, ctx):
        reports = await cron_invocation(
            db, app, int(controller.scheduledTime), clock=_now, sleep=asyncio.sleep,
            cap=app.statements_per_tick or TICK_STATEMENTS, outbox=outbox(app, env, db),
            settings=settings_of(app, env),
        )
    from ..words import printable  # an app's own code may hold a terminal escape

    for report in reports:
        for run in report.runs:
            print(printable(describe(run)))
    return reports


async def run_queue(app: App, env, batch, ctx=None) -> None:
    """The Worker's `queue(batch)`: each message to the consumer the app declares for its queue,
    which reads `env` and `ctx` as a run does."""
    from ..outbox.consumers import consume

    consumer = app.consumers.get(batch.queue)
    if consumer is None or app.store is None:
        print(f"tickwork: no consumer is declared for queue {batch.queue}; its messages are retried")
        for message in batch.messages:
            message.retry()
        return
    db = D1Database(getattr(env, app.store))
    messages = [_Message(message) for message in batch.messages]
    with in_worker(env, ctx):
        await consume(db, consumer, messages, _now(), outbox(app, env, db), clock=_now)


@asynccontextmanager
async def emitting(app: App, env):
    """For a `fetch` handler: `async with emitting(APP, self.env): await order_placed.emit(...)`
    keeps what was emitted in the outbox when the block ends without raising, then sends it."""
    from ..timing import Call

    emitted: list = []
    trace = new_trace()
    with running(_now(), Call(), outbox=emitted, trace=trace):
        yield
    if emitted:
        from ..outbox import Outbox
        from ..outbox_store import OutboxStore

        db = D1Database(getattr(env, app.store))
        sender = outbox(app, env, db)
        rows = sender.rows(emitted, None, "fetch", _now(), trace)
        await db.batch(OutboxStore.emitting(rows))
        await sender.send(Outbox.deliveries(rows), "fetch")


async def health_of(app: App, env, threshold: int | None = None, failing: int | None = None) -> tuple[int, dict]:
    """For a `fetch` that opts in to a health route: `status, body = await health_of(APP, self.env)`
    then `Response.json(body, status=status)`; with `failing=503`, that status too while a
    schedule is failing. Read-only; tells no run's details."""
    from ..health import TICKS_STOPPED_AFTER, health

    threshold = TICKS_STOPPED_AFTER if threshold is None else threshold
    return await health(D1Database(getattr(env, app.store)), _now(), threshold, failing, app.store)


def settings_of(app: App, env) -> dict:
    """The settings the app's purges read, as the Worker's vars give them to this invocation."""
    return {name: _setting(getattr(env, name, None)) for name in app.settings}


def _setting(value):
    return value.to_py() if hasattr(value, "to_py") else value


def outbox(app: App, env, db: Database) -> Outbox | None:
    if not app.producers:
        return None
    from ..outbox import Outbox

    queues = {binding: _Queue(getattr(env, binding)) for binding in app.producers}
    return Outbox(db, queues, app.consumed_here, _now)


class _Queue:
    """A Queue binding: the batch send, each body a message."""

    def __init__(self, binding):
        self._binding = binding

    async def send_batch(self, bodies: list[dict]) -> None:
        await self._binding.sendBatch([{"body": body} for body in bodies])


class _Message:
    """A queue message, its body as Python values."""

    def __init__(self, message):
        self._message = message
        self.id = str(message.id)
        self.attempts = int(message.attempts)
        body = message.body
        self.body = body.to_py() if hasattr(body, "to_py") else body

    def ack(self) -> None:
        self._message.ack()

    def retry(self) -> None:
        self._message.retry()


def _now() -> int:
    return int(time.time() * 1000)


def items(app: App, env, statements: int = INVOCATION_STATEMENTS) -> Items:
    """Schedules handed over from a `fetch` or `queue` handler, timed from the wall clock:
    `await items(APP, self.env).calendar(send_statement, {"customer": id}, "0 9 * * 1")`.
    Its calls in bulk make at most `statements` D1 statements in all, the invocation's 1,000 by
    default (pass 50 on the Free plan, less what the handler makes besides), and say what did
    not fit. Inside a run, `tickwork.items` does the same, timed from the tick."""
    from ..per_item import Items

    if app.store is None:
        raise RuntimeError("the app binds no D1 database to keep schedules in")
    db = D1Database(getattr(env, app.store))
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
    return f"tickwork: {run.schedule} due {iso(run.due_at)}{attempt}: {run.outcome}{why}{took}{retry}{trace}"


# -- the operator's console ---------------------------------------------------------------------

def console_prefix_of(app: App, path: str) -> bool:
    """Whether `path` is under the console's prefix, where the app serves one."""
    prefix = (app.console or {}).get("prefix")
    return bool(prefix) and (path == prefix or path.startswith(prefix + "/"))


async def console(app: App, env, request):
    """The console's `Response` to a request under its prefix, or None for any other (and for
    every request while the app serves no console): `Default.fetch` answers that one itself.
    The request must carry a Cloudflare Access JWT for the app's Access application or the
    bearer token the app's `console_token` secret holds. The console is imported only here."""
    from urllib.parse import urlsplit

    if not console_prefix_of(app, urlsplit(request.url).path):
        return None
    from ..console.access import Checked

    settings = app.console
    token = _setting(getattr(env, settings["token"], None)) if settings.get("token") else None
    access = Checked(token if isinstance(token, str) and token else None, settings.get("team"),
                     settings.get("aud"), WebCryptoVerifier() if settings.get("team") else None)
    return await serve_console(app, env, request, access)


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
    answer = await serve(D1Database(getattr(env, app.store)), app, plain, _now(), access)
    return Response(answer.body, status=answer.status, headers=answer.headers)


def _body_reader(request):
    """The console's reader of a Workers request's body: its stream read only when the console
    asks (once the request is let in), and no further than `most` bytes (None past them)."""

    async def read(most: int) -> bytes | None:
        stream = getattr(request, "body", None)
        if not hasattr(stream, "getReader"):  # no body (JavaScript's null)
            return b""
        reader, chunks, size = stream.getReader(), [], 0
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


KEYS_KEPT_MS = 3_600_000  # how long an isolate keeps an Access team's keys
KEYS_REFRESHED_MS = 60_000  # at most one fetch of them a minute, however many unknown keys come
KEYS_TIMEOUT_S = 3.0  # how long a request waits for them: a hung certs URL refuses it (503), not holds it


class WebCryptoVerifier:
    """Access JWTs checked with the runtime's Web Crypto (`crypto.subtle`), against the team's
    keys fetched once an isolate (again after an hour, or when a token names a key not held)."""

    _keys: dict[str, tuple[int, list[dict]]] = {}  # certs URL: (fetched at, keys), per isolate
    _tried: dict[str, int] = {}  # certs URL: when it last answered

    def __init__(self, fetch=None, timeout_s: float = KEYS_TIMEOUT_S):
        self.fetch = fetch  # the runtime's own `fetch` where None
        self.timeout_s = timeout_s

    async def keys(self, url: str, fresh: bool = False) -> list[dict] | None:
        now = _now()
        held = self._keys.get(url)
        kept = held is not None and not fresh and now - held[0] < KEYS_KEPT_MS
        if kept or now - self._tried.get(url, -KEYS_REFRESHED_MS) < KEYS_REFRESHED_MS:
            return held[1] if held else []
        try:
            body = await asyncio.wait_for(self._fetched(url), self.timeout_s)
        except Exception:  # out of reach or too slow: kept for nothing, so the next request tries again
            return held[1] if held else None
        WebCryptoVerifier._tried[url] = now
        found = body.get("keys") if isinstance(body, dict) else None
        if not isinstance(found, list):  # no JWKS: the keys held, if any, still check
            return held[1] if held else []
        keys = [dict(key) for key in found if isinstance(key, dict)]
        WebCryptoVerifier._keys[url] = (now, keys)
        return keys

    async def _fetched(self, url: str):
        """The JSON the certs URL answers; raises where it answers no 2xx."""
        if self.fetch is None:
            from js import fetch
        else:
            fetch = self.fetch
        response = await fetch(url)
        if not response.ok:
            raise ConnectionError(f"{url} answered {getattr(response, 'status', 'not 2xx')}")
        return _setting(await response.json())

    async def rs256(self, jwk: dict, data: bytes, signature: bytes) -> bool:
        import json

        from js import JSON, crypto
        from pyodide.ffi import to_js

        public = {name: jwk[name] for name in ("kty", "n", "e") if name in jwk}
        algorithm = JSON.parse('{"name": "RSASSA-PKCS1-v1_5", "hash": "SHA-256"}')
        try:
            key = await crypto.subtle.importKey("jwk", JSON.parse(json.dumps(public)), algorithm, False,
                                                to_js(["verify"]))
            return bool(await crypto.subtle.verify(algorithm, key, to_js(signature), to_js(data)))
        except Exception:  # a key Web Crypto cannot import is no key of the team's
            return False
