"""What one tick does: run the schedules that are due, once each, and record every run and skip."""

import asyncio
import logging
import time
import os
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
from .schedule_store import Lease, ScheduleStore, Seed, State
from .timing import Call, Owing
from .times import MINUTE, iso

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
    started_at: int | None = None,
    max_statements: int | None = None,
) -> TickReport:
    """Runs one tick at `now` (epoch ms) against `db`.

    `budget` is the tick's time in ms; `monotonic` measures how much of it is spent, in seconds.
    `started_at` is the wall time the invocation began (a cron run may start after its
    `scheduledTime`), from which leases and run records are timed; `now` by default.
    `max_statements` caps the D1 statements the tick makes: due schedules beyond what it leaves
    room for stay due for the next tick.
    """
    tick = _Tick(ScheduleStore(db), list(schedules), now, budget, monotonic, started_at)
    return await tick.run(max_statements)


# A write that must land (a run's end) is tried again at once, then after these pauses (seconds),
# for as long as the run's lease lasts.
RETRY_PAUSES = (0, 0.25, 1, 2, 4, 8, 15, 30, 60)

# A tick's first batch: the app's tick marked, the due rows read.
FIRST_READ = 2

# The most statements one due schedule costs: a lease batch of 3, an end batch of 2.
STATEMENTS_PER_DUE = 5


class _Tick:
    def __init__(self, store, schedules, now, budget, monotonic, started_at):
        self.store: ScheduleStore = store
        self.schedules: list[Schedule] = schedules
        self.now: int = now
        self.budget = budget
        self.monotonic = monotonic
        self.started = monotonic()
        self.wall = now if started_at is None else started_at
        self.moments = _actions_with_several_calendars(schedules)
        self.owing = Owing(now)

    def elapsed(self) -> int:
        return round((self.monotonic() - self.started) * 1000)

    def clock_ms(self) -> int:
        """Wall time inside the tick: when its invocation began plus what has elapsed since."""
        return self.wall + self.elapsed()

    async def run(self, max_statements: int | None = None) -> TickReport:
        before = self.store.db.statements_run
        most = None if max_statements is None else max(max_statements - FIRST_READ, 0) // STATEMENTS_PER_DUE
        states, earliest_lease = await self.due_states(most)
        if earliest_lease is not None and earliest_lease <= self.now:
            await self.store.expire_leases(self.now)
            states = [_without_lease(s) if s.lease_expired(self.now) else s for s in states]
        by_name = {schedule.name: schedule for schedule in self.schedules}
        due = [(by_name[state.name], state) for state in states if state.name in by_name]
        if max_statements is not None:
            room = max_statements - (self.store.db.statements_run - before)
            due = due[: max(room, 0) // STATEMENTS_PER_DUE]
        reports = await asyncio.gather(*(self.guarded(s, state) for s, state in due))
        return TickReport(self.now, [report for report in reports if report is not None])

    async def guarded(self, schedule: Schedule, state: State) -> RunReport | None:
        """One schedule's part of the tick: whatever goes wrong in it, the others go on. A D1
        error after a write may have landed is dealt with where it happens; what reaches here
        left the schedule as it was."""
        try:
            return await self.run_due(schedule, state, self.owing.owed(schedule.timing, state.due_at))
        except Exception:
            log.exception("%s: the tick could not deal with it; it stays due", schedule.name)
            return None

    async def due_states(self, most: int | None) -> tuple[list[State], int | None]:
        """The rows due now, oldest first, and the earliest lease any row holds. Only when the
        declared set changed since the rows were last reconciled with it are they reconciled."""
        reached = await self.store.reach(self.now, most)
        fingerprint = _fingerprint(self.schedules)
        if reached.fingerprint == fingerprint:
            return reached.due, reached.earliest_lease
        await self.reconcile(fingerprint)
        return await self.store.due(self.now, most), reached.earliest_lease

    async def reconcile(self, fingerprint: str) -> None:
        """New schedules get rows, changed forms and calendars declared again are rebased, and
        rows no longer declared are marked removed."""
        by_name = {schedule.name: schedule for schedule in self.schedules}
        stored = await self.store.named(list(by_name), self.now)
        new, changed, again, failed = [], [], [], False
        for name, schedule in by_name.items():
            state, timing = stored.get(name), schedule.timing
            try:
                if state is None:
                    new.append(_seed(schedule, timing.first_due(self.now)))
                elif state.form != timing.form or (state.removed_at is not None and timing.forgets_absence):
                    changed.append((state, _seed(schedule, timing.rebased(state.due_at, self.now))))
                elif state.removed_at is not None:
                    again.append(name)
            except Exception:
                log.exception("%s: its timing failed; it is left out of this tick", name)
                failed = True
        # Sealed only when every schedule was dealt with: the next tick tries the rest again.
        await self.store.reconcile(new, changed, again, None if failed else fingerprint, self.now)

    async def run_due(self, schedule: Schedule, state: State, call: Call) -> RunReport | None:
        timing = schedule.timing
        following = self.owing.following(timing, state.due_at)
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
        if reason is not None:
            return await self.skip(schedule, state, following, reason, call, detail)
        spent = self.elapsed()
        left = self.budget - spent
        if left <= 0:
            return None  # the budget is spent: the schedule stays due for the next tick
        run_id = _run_id()
        started = self.wall + spent
        lease_until = started + min(left, RUN_LIMIT) + LEASE_GRACE
        moment_of = _action_key(schedule) if schedule.name in self.moments else None
        try:
            lease = await self.store.take_lease(
                schedule.name, state.due_at, following, run_id, lease_until, self.now, started, call,
                moment_of,
            )
        except Exception as error:
            lease = await self.landed(schedule, "lease", run_id, error, lease_until)
        if lease is Lease.LOST:
            return None
        if lease is Lease.MOMENT_TAKEN:
            detail = "another calendar of the action made the call for this moment"
            await self.must_land(
                schedule, lease_until, "its coalesced skip",
                lambda _: self.store.coalesced(schedule.name, state.due_at, run_id, self.now, call, detail),
            )
            return RunReport(
                schedule.name, state.due_at, self.now, Outcome.SKIPPED, Code.COALESCED,
                detail=detail, call=call,
            )
        limit = min(left, RUN_LIMIT)
        outcome, code, kind, detail = await self.call(schedule, call, limit)
        ended = self.clock_ms()
        if ended - started > limit and code != Code.DEADLINE_EXCEEDED:
            outcome, code, kind, detail = self.overran(schedule, (
                f"ended after {ended - started} ms, past its limit of {limit} ms: it blocked "
                "instead of awaiting, so it could not be stopped on time"))

        def finish(late: str | None):
            noted = detail if late is None else "; ".join(filter(None, [detail, late]))
            return self.store.finish(schedule.name, run_id, outcome, code, kind, noted, ended)

        await self.must_land(schedule, lease_until, f"the end of its {outcome} run", finish)
        return RunReport(
            schedule.name, state.due_at, self.now, outcome, code, kind, detail, started, ended, call
        )

    async def landed(self, schedule: Schedule, what: str, run_id: str, error: Exception, until: int) -> Lease:
        """After a lease or skip batch answered an error: whether it landed, read back by run id.
        Unknown after the retries: treated as lost, which it is unless the write landed."""
        try:
            lease = await self.must_land(
                schedule, until, f"the read-back of its {what}",
                lambda _: self.store.written_by(schedule.name, run_id),
            )
        except Exception:
            log.error(
                "%s: D1 answered an error (%s) to its %s write, and whether that landed could not "
                "be read back: if it did not, it stays due; if a lease did, the run's record ends "
                "lease_expired at %s", schedule.name, error, what, iso(until),
            )
            return Lease.LOST
        landed = "did not land; it stays due" if lease is Lease.LOST else "landed; the tick goes on"
        log.warning("%s: D1 answered an error (%s) to its %s write, which %s", schedule.name, error, what, landed)
        return lease

    async def must_land(self, schedule: Schedule, until: int, what: str, write: Callable):
        """Runs `write(late)` until D1 takes it, while the lease lasts: `late` is None on the first
        attempt, then says what failed. Raises the last error when the lease is up."""
        late = None
        for attempt, pause in enumerate(RETRY_PAUSES, start=2):
            try:
                return await write(late)
            except Exception as error:
                log.warning("%s: %s was not recorded (%s); trying again", schedule.name, what, error)
                late = f"its end was recorded late, on attempt {attempt}: D1 answered {error}"
                if self.clock_ms() + pause * 1000 >= until:
                    log.error("%s: %s could not be recorded before its lease lapses at %s",
                              schedule.name, what, iso(until))
                    raise
                await asyncio.sleep(pause)
        return await write(late)

    async def skip(self, schedule, state, following, reason, call, detail) -> RunReport | None:
        run_id = _run_id()
        try:
            skipped = await self.store.skip(
                schedule.name, state.due_at, following, reason, run_id, self.now, call, detail
            )
        except Exception as error:
            landed = await self.landed(schedule, "skip", run_id, error, self.clock_ms() + LEASE_GRACE)
            skipped = landed is Lease.TAKEN
        if not skipped:
            return None
        log.info("%s: skipped the call due %s: %s", schedule.name, iso(state.due_at), reason)
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
                return self.overran(schedule, f"stopped after {limit} ms, the end of its run limit or its tick's budget")
            except Exception as error:
                return self.failed(schedule, *_raised(error))
        return Outcome.SUCCEEDED, None, None, None

    def overran(self, schedule: Schedule, detail: str):
        """Past the run limit or the tick's budget. Blocking code cannot be stopped there; it
        fails all the same when it ends."""
        log.error("%s: run failed: deadline_exceeded: %s", schedule.name, detail)
        return Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE, detail

    def failed(self, schedule: Schedule, code: str, detail: str, trace: str):
        log.error("%s: run failed: %s: %s\n%s", schedule.name, code, detail, trace)
        return Outcome.FAILED, code, Kind.RAISED, detail


def _action_key(schedule: Schedule) -> str:
    action = schedule.action
    return f"{getattr(action, '__module__', '')}.{getattr(action, '__qualname__', repr(action))}"


def _actions_with_several_calendars(schedules: list[Schedule]) -> set[str]:
    """The entries whose calls must claim their moment: calendars sharing an action."""
    by_action: dict[str, list[str]] = {}
    for schedule in schedules:
        if schedule.timing.coalesces:
            by_action.setdefault(_action_key(schedule), []).append(schedule.name)
    return {name for names in by_action.values() if len(names) > 1 for name in names}


def _fingerprint(schedules: list[Schedule]) -> str:
    """The declared set as the state rows see it: each schedule's name and form."""
    import hashlib  # at first use: a Worker's cold start skips it

    declared = "\n".join(sorted(f"{s.name}\t{s.timing.form}" for s in schedules))
    return hashlib.sha256(declared.encode()).hexdigest()


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
    return os.urandom(16).hex()
