"""One run, the same for the due runs and the backfilled ones: its action called under its limit
(the run limit, the tick's budget, the schedule's own), stopped at its deadline, what it emitted
kept with its end, and, where it failed with attempts left, its retry; its end handed to the
tick's `Ends` as it finishes."""

from __future__ import annotations

import asyncio
import json
import logging
import traceback
from collections import Counter
from typing import Any, Awaitable, Callable

from ..context import current_run, running
from ..database import operation
from ..model import ActionError, Code, Kind, Outcome, Schedule
from ..store.outbox import Emitted
from ..per_item import Items
from ..store.claims import Claim
from ..store.ends import STACK_KEPT, End
from ..times import iso
from .budget import Budget, Lease, chunked
from .ends import Ends, Recorder
from .reports import RunReport
from .retrying import failed_at, retried
from .state import TickState
from .workflows import start

log = logging.getLogger("tickwork")

Verdict = tuple[Outcome, str | None, str | None, str | None]  # outcome, code, kind, detail
Run = Callable[[list[tuple[Claim, Schedule]], Lease], Awaitable[list[RunReport]]]


class Runner:
    """The tick's runs: each step's side by side, their ends recorded as they finish. The
    statements of the ends still to record are held in the budget while they run."""

    def __init__(self, state: TickState, budget: Budget, recorder: Recorder):
        self.state = state
        self.budget = budget
        self.recorder = recorder
        self.items = Items(state.store.db, lambda: state.now, self.room_for_run)
        if state.wakes is not None:  # a `once` item a run hands over for before the next tick is woken for
            from ..waking_items import WakingItems

            self.items = WakingItems(state.store.db, lambda: state.now, self.room_for_run, noted=state.handed_wakes)

    async def run(self, runs: list[tuple[Claim, Schedule]], lease: Lease) -> list[RunReport]:
        """The runs claimed under `lease`, side by side."""
        ends = Ends(lambda batch: self.recorder.write(batch, lease.ends_by), len(runs), self.recorder.may_write_now)
        self.budget.hold("ends", lambda: self.to_record(ends))
        try:
            reports = await asyncio.gather(*(self.run_one(c, s, lease.started, lease.limit, ends) for c, s in runs))
            await ends.done()
        finally:  # a step that catches a failure here (backfill) leaves the sweep its statements, as before
            self.budget.release("ends")
        return list(reports)

    def to_record(self, ends: Ends) -> int:
        """The statements held for the ends still to record."""
        return self.recorder.cost(ends.queue) + self.state.flush * chunked(ends.outstanding)

    def room_for_run(self) -> int | None:
        """The statements the run under way may still make (its hand-overs in bulk): what the
        cap leaves beside what is held (the sweep, the ends still to record) and the run's own
        writes."""
        room = self.budget.room()
        if room is None:
            return room
        writes = current_run().with_end  # type: ignore[no-untyped-call]
        return room - (len(writes) + 1 if writes else 0)

    async def run_one(self, claim: Claim, schedule: Schedule, started: int, limit: int, ends: Ends) -> RunReport:
        state = self.state
        if schedule.limit is not None:
            limit = min(limit, schedule.limit)
        state.traces[claim.run] = claim.trace
        emitted: list[Any] = []
        counts: dict[str, Any] = {}
        with_end: list[Any] = []
        opened = False  # a run through a Workflow whose instance is open (tick.workflows)
        if schedule.workflow is not None:
            (outcome, code, kind, detail), opened = await start(state, self.budget, schedule, claim, started)
        else:
            outcome, code, kind, detail = await self.call(schedule, claim, limit, emitted, counts, with_end)
        ended = self.budget.wall()
        if ended - started > limit and code != Code.DEADLINE_EXCEEDED:
            outcome, code, kind, detail = _overran(claim, (
                f"ended after {ended - started} ms, past its limit of {limit} ms: it blocked "
                "instead of awaiting, so it could not be stopped on time"))
        if with_end and outcome == Outcome.SUCCEEDED and not self.budget.fits(len(with_end) + 1):
            # its writes, behind their check, beside what is held for the ends still to record
            outcome, code, kind, detail = _failed(claim, Code.INTERNAL_FAULT, (
                f"its {len(with_end)} on_success writes take {len(with_end) + 1} statements, more than "
                "the tick has left of its cap beside the ends still to record; none was kept"), "")
        rows: list[Emitted] = []
        events = None
        if emitted and outcome == Outcome.SUCCEEDED:  # a failed run emits nothing
            if state.outbox is None:
                log.error("%s: emitted %d events, but the app binds no queue to send them", claim.name, len(emitted),
                          extra=said(claim, "events_unsent"))
            else:
                rows = state.outbox.rows(emitted, claim.run, state.sender, ended, claim.trace)
                events = _counted(emitted)
        kept = json.dumps(events, sort_keys=True) if events else None
        writes = tuple(with_end) if outcome == Outcome.SUCCEEDED else ()  # a failed run writes nothing
        retry: dict[str, Any] = {}
        if outcome == Outcome.FAILED:
            retry, kind = retried(schedule, claim, failed_at(state.now, self.budget.began, ended), code, kind)
        if retry:
            log.warning("%s: attempt %d failed; attempt %d is due %s", claim.name, claim.attempt, retry["attempt"],
                        iso(retry["retry"]), extra=said(claim, "retry_scheduled"))
        times = schedule.times if not retry and not opened else None  # a call counts once its last attempt ends
        recorded = None if opened else ended  # a run through a Workflow ends when its instance settles
        ends.add((End(claim.name, claim.run, outcome, code, kind, detail, recorded, **counts, events=kept,
                      writes=writes, **retry, times=times, beside=claim.beside), rows))
        return RunReport(
            claim.name, claim.due_for, state.now, outcome, code, kind, detail, started, ended, claim.call,
            counts.get("items"), claim.trace, events, claim.attempt, retry.get("retry"), missed_of(claim),
            origin="due" if claim.by_hand is None else "by_hand",
        )

    @operation("run")
    async def call(self, schedule: Schedule, claim: Claim, limit: int, emitted: list[Any], counts: dict[str, Any],
                   with_end: list[Any]) -> Verdict:
        state = self.state
        with running(state.now, claim.call, self.items, outbox=emitted, db=state.store.db, counts=counts,
                     trace=claim.trace, settings=state.settings, with_end=with_end):
            try:
                async with asyncio.timeout(limit / 1000) as deadline:
                    await schedule.action()
            except TimeoutError as error:
                if not deadline.expired():
                    return _failed(claim, *_raised(error, counts))
                return _overran(claim, f"stopped after {limit} ms, the end of its run limit or its tick's budget")
            except Exception as error:
                return _failed(claim, *_raised(error, counts))
        return Outcome.SUCCEEDED, None, None, None


def said(claim: Claim, event: str) -> dict[str, Any]:
    """A log line's fields of a claim's run (logs.py): what happened, to which schedule, in which trace."""
    return {"event": event, "schedule": claim.name, "trace": claim.trace, "attempt": claim.attempt}


def missed_of(claim: Claim) -> int:
    """The occurrences a claim covers besides its own: those it catches up on."""
    return claim.covers.count - 1 if claim.covers is not None else 0


def _overran(claim: Claim, detail: str) -> Verdict:
    """Past the run limit or the tick's budget. Blocking code cannot be stopped there; it
    fails all the same when it ends."""
    log.error("%s: run failed: deadline_exceeded: %s (trace %s)", claim.name, detail, claim.trace,
              extra=said(claim, "run_failed"))
    return Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE, detail


def _failed(claim: Claim, code: str, detail: str, stack: str, kind: str = Kind.RAISED) -> Verdict:
    log.error("%s: run failed: %s: %s (trace %s)\n%s", claim.name, code, detail, claim.trace, stack,
              extra=said(claim, "run_failed"))
    return Outcome.FAILED, code, kind, detail


def _counted(emitted: list[Any]) -> dict[str, int]:
    """What a run emitted, by event: {name: how many}."""
    return dict(Counter(e.event for e in emitted))


def _raised(error: BaseException, counts: dict[str, Any]) -> tuple[str, str, str, str]:
    """The failure's code, detail, traceback and kind; the traceback's end is kept with the run's
    end (`counts`' `stack`), for its page in the console."""
    code = error.code if isinstance(error, ActionError) else Code.INTERNAL_FAULT
    detail = f"{type(error).__name__}: {error}"
    trace = "".join(traceback.format_exception(error))
    counts["stack"] = _kept_stack(error, trace)
    final = isinstance(error, ActionError) and not error.retry  # retried() says whether it stopped an attempt
    return code, detail, trace, Kind.UNRETRIED if final else Kind.RAISED


CLIPPED = " ... (clipped: the detail keeps it whole)\n"
SAID_KEPT = 1000  # characters of the error's own line a kept stack holds, so a long message leaves the frames in


def _kept_stack(error: BaseException, trace: str) -> str:
    """The end of a raised run's traceback, at most STACK_KEPT characters: the frames nearest
    where it raised, and the error's own line, clipped where it is long (its detail keeps it)."""
    said = "".join(traceback.format_exception_only(error))
    if len(trace) <= STACK_KEPT or len(said) <= SAID_KEPT or not trace.endswith(said):
        return trace[-STACK_KEPT:]
    clipped = said[:SAID_KEPT] + CLIPPED
    return trace[: len(trace) - len(said)][-(STACK_KEPT - len(clipped)):] + clipped
