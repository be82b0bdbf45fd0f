"""What an action reads of its run: `clock.now`, and `call.at`, `call.n`, `call.i`, `call.trace`.

    from tickwork import call, clock

    async def weekly_report():
        week_ending = call.at          # the moment this call was scheduled for, epoch ms
        print(f"report for {week_ending}, made at {clock.now}")

Both are fixed for the whole run: every read of `clock.now` gives the tick's time. The values
live in a context variable, so runs side by side each see their own. In a test, wrap the call
in `clock.fixed(ms)` or `call.given(at=...)`.

The Worker's own bindings and secrets are `env` (`env.DB`, `env.API_TOKEN`, as `self.env` in a
handler), work to finish after the handler returns goes to `wait_until`, and `on_success.write`
keeps a D1 statement to commit with the run's end. In a test, `env.given(DB=..., ctx=...)`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime
from types import SimpleNamespace
from typing import TYPE_CHECKING

from .times import to_datetime

if TYPE_CHECKING:
    from .kinds import Call


log = logging.getLogger("tickwork")


def printable_lines(record: logging.LogRecord) -> bool:
    """tickwork's log lines (what `wrangler tail` and `tickwork dev` show) with the control
    characters of what they quote (an action's error, its traceback) escaped line by line, as the
    command prints text: no terminal escape in an error reaches an operator's screen."""
    from .operating.words import printable  # at the first line logged, not at a cold start

    def lines(text: str) -> str:
        return "\n".join(printable(line) for line in text.split("\n"))

    try:
        record.msg, record.args = lines(record.getMessage()), ()
    except Exception:  # a line whose arguments do not fit: the handler reports it, never the caller
        return True
    if record.exc_info and not record.exc_text:
        record.exc_text = lines(logging.Formatter().formatException(record.exc_info))
    return True


log.addFilter(printable_lines)


class _Lines(logging.Handler):
    """Each line of the logger "tickwork" as its JSON line (logs.py, imported at the first line
    logged), to stderr: on Workers, `console.error`, which Workers Logs keep. Below warning, as
    before, no line is logged but a run's own (logs.run_ended)."""

    def emit(self, record: logging.LogRecord) -> None:
        from .logs import write

        try:
            run = _run.get()
            write(record, run.trace if run is not None else None)
        except Exception:
            self.handleError(record)


log.addHandler(_Lines())


class NotInRun(RuntimeError):
    pass


def new_trace() -> str:
    """A trace id, 32 hex digits, drawn as a run or a call starts (never at import time: a
    Worker's memory snapshot would give every run the same)."""
    return os.urandom(16).hex()


class _Run:
    __slots__ = ("now", "call", "items", "outbox", "writes", "db", "counts", "trace", "settings", "with_end", "ended")

    def __init__(self, now: int, call: Call, items=None, outbox: list | None = None, writes: list | None = None,
                 db=None, counts: dict | None = None, trace: str | None = None, settings: dict | None = None,
                 with_end: list | None = None):
        self.now, self.call = now, call
        self.items = items  # the Items of the run's store: schedules handed over from inside a run
        self.outbox = outbox  # what the run emits, committed with its end if it succeeds
        self.writes = writes  # a consumer's own statements, committed with its handled record
        self.db = db  # the run's store, for tickwork's own actions (a purge)
        self.counts = counts  # what tickwork's own actions report for the run record
        self.trace = trace  # the run's trace; a consumer's call continues the one it was sent in
        self.settings = settings  # the app's settings (the Worker's vars) as the invocation began
        self.with_end = with_end  # a run's own statements, committed with its end if it succeeds
        self.ended = False  # its writes are taken: work it handed to wait_until may write no more


_run: ContextVar[_Run | None] = ContextVar("tickwork_run", default=None)


def _current(what: str) -> _Run:
    run = _run.get()
    if run is None:
        raise NotInRun(f"{what} is set only inside a run; in a test, use clock.fixed or call.given")
    return run


@contextmanager
def running(now: int, call: Call, items=None, outbox: list | None = None, writes: list | None = None,
            db=None, counts: dict | None = None, trace: str | None = None, settings: dict | None = None,
            with_end: list | None = None):
    run = _Run(now, call, items, outbox, writes, db, counts, trace, settings, with_end)
    token = _run.set(run)
    try:
        yield
    finally:
        run.ended = True
        _run.reset(token)


class Clock:
    @property
    def now_ms(self) -> int:
        return _current("clock.now").now

    @property
    def now(self) -> datetime:
        """The run's time as an aware UTC datetime."""
        return to_datetime(self.now_ms)

    def fixed(self, ms: int):
        """For a test: `clock.now` at `ms`, the call's input as it is."""
        from .kinds import Call

        run = _run.get()
        return running(ms, run.call if run else Call())


class CallInput:
    """A calendar's call has `at`; a pulse's has `n` and `i`; what did not arrive is None."""

    @property
    def at(self) -> int | None:
        return _current("call.at").call.at

    @property
    def n(self) -> int | None:
        return _current("call.n").call.n

    @property
    def i(self) -> int | None:
        return _current("call.i").call.i

    @property
    def trace(self) -> str | None:
        """The run's trace id (32 hex digits), new for each run; in a queue consumer, the trace of
        the run (or consumer) that emitted the event. Log it to follow a run's work."""
        return _current("call.trace").trace

    @property
    def input(self):
        """What a schedule handed over at run time was handed over with (JSON values)."""
        return _current("call.input").call.input

    def given(self, *, at: int | None = None, n: int | None = None, i: int | None = None, input=None):
        """For a test: the call's input, with `clock.now` as it is, or else at `at`."""
        from .kinds import Call

        run = _run.get()
        return running(run.now if run else at or 0, Call(at=at, n=n, i=i, input=input))


class RunItems:
    """Inside a run, the Items of the run's store: `await items.calendar(...)`. Outside a run
    (a `fetch` or `queue` handler), use `tickwork.adapters.workers.items(APP, self.env)`."""

    def __getattr__(self, name: str):
        if name.startswith("_"):  # what tools ask of any object (copy, pickle, the build's scan)
            raise AttributeError(name)
        run = _current("tickwork.items")
        if run.items is None:
            raise NotInRun("this run has no store to hand schedules over to")
        return getattr(run.items, name)


class Handled:
    """Inside a queue consumer: D1 statements of the consumer's own, committed in one batch with
    the record that the delivery was handled, so a repeat never does the work twice. They run on
    the store's D1 database, which keeps the handled records: what a consumer writes to another
    database is outside the batch, and a repeat may write it again (docs: how-to/events.md)."""

    def write(self, sql: str, *params) -> None:
        run = _writing("handled.write")
        if run.writes is None:
            raise NotInRun("handled.write is for queue consumers: in a run, use on_success.write")
        run.writes.append(_statement("handled.write", sql, params))


class OnSuccess:
    """D1 statements that commit only if the run succeeds, in one batch with its end record (in
    a queue consumer, with its handled record, as `handled.write`). They run on the store's D1
    database, the one keeping tickwork's tables."""

    def write(self, sql: str, *params) -> None:
        run = _writing("on_success.write")
        kept = run.with_end if run.with_end is not None else run.writes
        if kept is None:
            raise NotInRun("on_success.write is for a run or a queue consumer")
        kept.append(_statement("on_success.write", sql, params))


# D1's limits on one statement: refused where it is given, not later in the batch of the end,
# where the refusal would cost the run its end and its siblings' writes a second attempt.
D1_PARAMS = 100
D1_STATEMENT_BYTES = 100_000


def _writing(what: str) -> _Run:
    run = _current(what)
    if run.ended:
        raise NotInRun(f"{what} after its run ended: its end is recorded already, so the statement "
                       "would never commit; write in the run, not in work handed to wait_until")
    return run


def _statement(what: str, sql: str, params: tuple) -> tuple:
    if not isinstance(sql, str):
        raise TypeError(f"{what} takes the SQL as a string, not {type(sql).__name__}")
    if len(params) > D1_PARAMS:
        raise ValueError(f"{what}: the statement binds {len(params)} parameters; D1 takes at most {D1_PARAMS}")
    size = len(sql.encode())
    if size > D1_STATEMENT_BYTES:
        raise ValueError(f"{what}: the statement is {size:,} bytes long; D1 takes at most {D1_STATEMENT_BYTES:,}")
    return sql, params


class _Worker:
    __slots__ = ("env", "ctx")

    def __init__(self, env, ctx=None):
        self.env, self.ctx = env, ctx


_worker: ContextVar[_Worker | None] = ContextVar("tickwork_worker", default=None)


@contextmanager
def in_worker(env, ctx=None):
    """The Worker's `env` and `ctx` for what runs inside: set by the Workers adapter around a
    cron invocation or a queue batch, or by a test (`env.given`)."""
    token = _worker.set(_Worker(env, ctx))
    try:
        yield
    finally:
        _worker.reset(token)


def _in_worker(what: str) -> _Worker:
    worker = _worker.get()
    if worker is None:
        raise NotInRun(f"{what} is set only inside a run or a queue consumer; in a test, use env.given")
    return worker


class Env:
    """The Worker's bindings, vars and secrets, read by name: `env.DB`, `env.API_TOKEN`. What
    the runtime hands over, as it is (on Workers, the SDK's wrapper: D1 results are dicts)."""

    def __getattr__(self, name: str):
        if name.startswith("_"):  # what tools ask of any object (copy, pickle, the build's scan)
            raise AttributeError(name)
        return getattr(_in_worker(f"tickwork.env.{name}").env, name)

    def given(self, env=None, /, *, ctx=None, **bindings):
        """For a test: `with env.given(DB=db, API_TOKEN="t"):`, or an object whose attributes
        are the bindings; `ctx` is what `wait_until` hands work to (its `waitUntil`)."""
        if env is not None and bindings:
            raise TypeError("env.given takes an object or bindings by name, not both")
        return in_worker(SimpleNamespace(**bindings) if env is None else env, ctx)


def wait_until(work):
    """Hands `work` (a coroutine or any awaitable) to the invocation's `ctx.waitUntil`: it runs
    on after the run, and the Worker's invocation waits for it. Its failure is logged, not the run's."""
    ctx = _in_worker("wait_until").ctx
    if ctx is None:
        if hasattr(work, "close"):
            work.close()  # never to run: no "never awaited" warning on top of the error
        raise NotInRun("wait_until has no ctx to hand work to: the adapter was given none "
                       "(pass self.ctx); in a test, use env.given(ctx=...)")
    task = asyncio.ensure_future(_logged(work))
    ctx.waitUntil(task)
    return task


async def _logged(work):
    """Work after the run: its failure is no run's to record, so it is logged."""
    try:
        return await work
    except Exception as error:
        log.exception("work handed to wait_until failed: %s: %s", type(error).__name__, error,
                      extra={"event": "wait_until_failed"})


def current_run():
    """The run under way, for tickwork's own actions."""
    return _current("a purge")


def emitted() -> list:
    """Where `Event.emit` puts what it emits: the current run's, consumer's or handler's outbox."""
    run = _run.get()
    if run is None or run.outbox is None:
        raise NotInRun(
            "an event is emitted from a run, a queue consumer, or a fetch handler inside "
            "`async with tickwork.adapters.workers.emitting(APP, self.env)`"
        )
    return run.outbox


clock = Clock()
call = CallInput()
items = RunItems()
handled = Handled()
on_success = OnSuccess()
env = Env()
