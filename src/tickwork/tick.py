"""What one tick does: run the schedules that are due, once each, and record every run and skip."""

import asyncio
import logging
import time
import secrets
import traceback
from dataclasses import dataclass, replace
from typing import Callable, Iterable

from .context import running
from .database import Database
from .model import (
    LEASE_GRACE,
    RUN_LIMIT,
    ActionError,
    Code,
    Kind,
    Outcome,
    Schedule,
)
from .schedule_store import ScheduleStore, Seed, State
from .timing import Call
from .times import MINUTE

log = logging.getLogger("tickwork")

# A Worker's cron run has 15 minutes of wall time; a tick stops its runs a minute before, so
# that their ends are recorded and their leases given back before the platform cuts it off.
WORKER_TICK_BUDGET = 14 * MINUTE


@dataclass(frozen=True)
class RunReport:
    """A run or a skip as the tick saw it end."""

    schedule: str
    due_at: int
    tick_at: int
    outcome: Outcome
    code: str | None = None
    kind: str | None = None
    detail: str | None = None
    started_at: int | None = None
    ended_at: int | None = None
    call: Call = Call()

    @property
    def duration_ms(self) -> int | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return self.ended_at - self.started_at


@dataclass(frozen=True)
class TickReport:
    at: int
    runs: list[RunReport]


async def tick(
    db: Database,
    schedules: Iterable[Schedule],
    now: int,
    *,
    budget: int = WORKER_TICK_BUDGET,
    monotonic: Callable[[], float] = time.monotonic,
) -> TickReport:
    """Runs one tick at `now` (epoch ms) against `db`.

    `budget` is the tick's time in ms; `monotonic` measures how much of it is spent, in seconds.
    """
    return await _Tick(ScheduleStore(db), list(schedules), now, budget, monotonic).run()


class _Tick:
    def __init__(self, store, schedules, now, budget, monotonic):
        self.store: ScheduleStore = store
        self.schedules: list[Schedule] = schedules
        self.now: int = now
        self.budget = budget
        self.monotonic = monotonic
        self.started = monotonic()

    def clock_ms(self) -> int:
        """Wall time inside the tick: its `now` plus what has elapsed since it began."""
        return self.now + round((self.monotonic() - self.started) * 1000)

    async def run(self) -> TickReport:
        states = await self.reached_states()
        if any(state.lease_expired(self.now) for state in states.values()):
            await self.store.expire_leases(self.now)
            states = {
                name: _without_lease(state) if state.lease_expired(self.now) else state
                for name, state in states.items()
            }
        due = [
            (schedule, states[schedule.name])
            for schedule in self.schedules
            if schedule.name in states and states[schedule.name].due_at <= self.now
        ]
        owed = [(s, state, s.timing.owed(state.due_at, self.now)) for s, state in due]
        makers = _one_call_per_moment(owed)
        reports = await asyncio.gather(
            *(self.run_due(s, state, call, makers.get(s.name)) for s, state, call in owed)
        )
        return TickReport(self.now, [report for report in reports if report is not None])

    async def reached_states(self) -> dict[str, State]:
        by_name = {schedule.name: schedule for schedule in self.schedules}
        states = await self.store.reach(list(by_name), self.now)
        new = [
            _seed(schedule, schedule.timing.first_due(self.now))
            for name, schedule in by_name.items()
            if name not in states
        ]
        changed = [
            (states[name], _seed(schedule, schedule.timing.rebased(states[name].due_at, self.now)))
            for name, schedule in by_name.items()
            if name in states and states[name].form != schedule.timing.form
        ]
        if new or changed:
            fresh = await self.store.seed_and_rebase(new, changed, self.now)
            for old, _ in changed:
                states.pop(old.name)  # a tick that lost the race to rebase leaves the schedule be
            states.update(fresh)
        return states

    async def run_due(
        self, schedule: Schedule, state: State, call: Call, maker: str | None
    ) -> RunReport | None:
        timing = schedule.timing
        following = timing.following(state.due_at, self.now)
        held = state.lease_live(self.now)
        if held and not state.paused and not timing.skips_while_running:
            return None  # owed until the run ends: made late, not lost
        reason, detail = None, None
        if state.paused:
            reason = Code.PAUSED
        elif held:
            reason = Code.RUNNING
        elif timing.overdue is not None and call.at is not None and self.now - call.at > timing.overdue:
            reason, detail = Code.OVERDUE, f"{self.now - call.at} ms late; overdue allows {timing.overdue} ms"
        elif maker is not None and maker != schedule.name:
            reason, detail = Code.COALESCED, f"one call for this moment, made by {maker}"
        if reason is not None:
            return await self.skip(schedule, state, following, reason, call, detail)
        started = self.clock_ms()
        left = self.budget - (started - self.now)
        if left <= 0:
            return None  # the budget is spent: the schedule stays due for the next tick
        run_id = _run_id()
        lease_until = started + min(left + LEASE_GRACE, RUN_LIMIT)
        won = await self.store.take_lease(
            schedule.name, state.due_at, following, run_id, lease_until, self.now, started, call
        )
        if not won:
            return None
        outcome, code, kind, detail = await self.call(schedule, call, min(left, RUN_LIMIT))
        ended = self.clock_ms()
        await self.store.finish(schedule.name, run_id, outcome, code, kind, detail, ended)
        return RunReport(
            schedule.name, state.due_at, self.now, outcome, code, kind, detail, started, ended, call
        )

    async def skip(self, schedule, state, following, reason, call, detail) -> RunReport | None:
        skipped = await self.store.skip(
            schedule.name, state.due_at, following, reason, _run_id(), self.now, call, detail
        )
        if not skipped:
            return None
        log.info("%s: skipped the call due %s: %s", schedule.name, state.due_at, reason)
        return RunReport(
            schedule.name, state.due_at, self.now, Outcome.SKIPPED, reason, detail=detail, call=call
        )

    async def call(self, schedule: Schedule, call: Call, limit: int):
        with running(self.now, call):
            try:
                async with asyncio.timeout(limit / 1000) as deadline:
                    await schedule.action()
            except TimeoutError as error:
                if not deadline.expired():
                    return self.failed(schedule, *_raised(error))
                detail = f"stopped after {limit} ms, the end of its run limit or its tick's budget"
                log.error("%s: run failed: deadline_exceeded: %s", schedule.name, detail)
                return Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE, detail
            except Exception as error:
                return self.failed(schedule, *_raised(error))
        return Outcome.SUCCEEDED, None, None, None

    def failed(self, schedule: Schedule, code: str, detail: str, trace: str):
        log.error("%s: run failed: %s: %s\n%s", schedule.name, code, detail, trace)
        return Outcome.FAILED, code, Kind.RAISED, detail


def _one_call_per_moment(owed) -> dict[str, str]:
    """Calendars of one action owing the same moment make one call: each maps to the one making it."""
    makers: dict[tuple, str] = {}
    chosen = {}
    for schedule, _, call in sorted(owed, key=lambda entry: entry[0].name):
        if call.at is None or not schedule.timing.coalesces:
            continue
        key = (schedule.action, call.at)
        chosen[schedule.name] = makers.setdefault(key, schedule.name)
    return chosen


def _seed(schedule: Schedule, due: int) -> Seed:
    return Seed(schedule.name, schedule.timing.every_ms, schedule.timing.form, due)


def _raised(error: BaseException) -> tuple[str, str, str]:
    code = error.code if isinstance(error, ActionError) else Code.INTERNAL_FAULT
    detail = f"{type(error).__name__}: {error}"
    trace = "".join(traceback.format_exception(error))
    return code, detail, trace


def _without_lease(state: State) -> State:
    return replace(state, lease_run=None, lease_until=None)


def _run_id() -> str:
    return secrets.token_hex(16)
