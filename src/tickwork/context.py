"""What an action reads of its run: `clock.now`, and `call.at`, `call.n`, `call.i`, `call.trace`.

    from tickwork import call, clock

    async def weekly_report():
        week_ending = call.at          # the moment this call was scheduled for, epoch ms
        print(f"report for {week_ending}, made at {clock.now}")

Both are fixed for the whole run: every read of `clock.now` gives the tick's time. The values
live in a context variable, so runs side by side each see their own. In a test, wrap the call
in `clock.fixed(ms)` or `call.given(at=...)`.
"""

import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime

from .times import to_datetime
from .timing import Call


class NotInRun(RuntimeError):
    pass


def new_trace() -> str:
    """A trace id, 32 hex digits, drawn as a run or a call starts (never at import time: a
    Worker's memory snapshot would give every run the same)."""
    return os.urandom(16).hex()


@dataclass(frozen=True)
class _Run:
    now: int
    call: Call
    items: object = None  # the Items of the run's store: schedules handed over from inside a run
    outbox: list | None = None  # what the run emits, committed with its end if it succeeds
    writes: list | None = None  # a consumer's own statements, committed with its handled record
    db: object = None  # the run's store, for tickwork's own actions (a purge)
    counts: dict | None = None  # what tickwork's own actions report for the run record
    trace: str | None = None  # the run's trace; a consumer's call continues the one it was sent in
    settings: dict | None = None  # the app's settings (the Worker's vars) as the invocation began


_run: ContextVar[_Run | None] = ContextVar("tickwork_run", default=None)


def _current(what: str) -> _Run:
    run = _run.get()
    if run is None:
        raise NotInRun(f"{what} is set only inside a run; in a test, use clock.fixed or call.given")
    return run


@contextmanager
def running(now: int, call: Call, items=None, outbox: list | None = None, writes: list | None = None,
            db=None, counts: dict | None = None, trace: str | None = None, settings: dict | None = None):
    token = _run.set(_Run(now, call, items, outbox, writes, db, counts, trace, settings))
    try:
        yield
    finally:
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
    the record that the delivery was handled, so a repeat never does the work twice."""

    def write(self, sql: str, *params) -> None:
        run = _current("handled.write")
        if run.writes is None:
            raise NotInRun("handled.write is for queue consumers: a run commits its own writes")
        run.writes.append((sql, params))


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
