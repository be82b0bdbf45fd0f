"""The tick's backfill step: after the due runs, while the tick's budget and statements last, the
next occurrences of the backfills operators asked for (`tickwork backfill`), oldest first.

Each occurrence is made once per (schedule, at) however ticks race, under the schedule's own
lease (never two runs of a schedule at once), so a schedule makes one occurrence a round; what a
backfilled run emits is kept with its end and delivered as any run's is (the tick's one run
path, tick/runs.py). The pending backfills, and which of their next occurrences are made, are
read once for many rounds: a round costs its claim and its ends, so a tick makes as many as its
statements allow.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from typing import Any, Callable, cast

from ..backfill import own_from, to_backfill
from ..store.backfills import CLAIM_STATEMENTS, BackfillStore, Pending, Step
from ..context import new_trace
from ..database import operation
from ..model import Schedule
from ..store.sql import ROWS_PER_STATEMENT, run_id
from ..store.claims import Claim
from ..store.schedules import State
from ..times import MINUTE, SECOND
from ..kinds import Call
from .budget import Budget
from .reports import RunReport
from .runs import Run
from .state import TickState

log = logging.getLogger("tickwork")

BACKFILLS_A_ROUND = 10  # pending backfills read at once; a round makes one occurrence of each
ROUNDS = 200  # rounds a tick at most where no statement cap bounds them (the Worker's 900 allow ~170)
LOOKAHEAD = 100  # occurrences of a backfill read at once, the made ones passed over
READS = 2  # a read's statements: the pending backfills, and which of their occurrences are made
# A schedule's round starts only while its own next due time is further off than this, the time
# between ticks at the shortest (each 10-second mark): the tick that makes that run then finds the
# lease given back, not held by a backfilled run, which would have the due run skipped `running`.
GIVES_WAY = 10 * SECOND


@dataclass
class _Going:
    """A pending backfill as the step goes on with it: its occurrences still to make of those
    read (oldest first), and where it goes on from once they are (`next`; None: nowhere yet)."""

    pending: Pending
    schedule: Schedule
    todo: list[Any]
    next: int | None
    passed: bool = False  # gone on past occurrences found made, with no run
    dropped: bool = False  # a claim of it was not won: left for the next tick


class _Backfill:
    def __init__(self, tick: TickState, budget: Budget, run: Run, schedule_of: Callable[[State], Schedule | None]):
        self.tick = tick
        self.budget = budget
        self.run = run
        self.schedule_of = schedule_of
        self.store = BackfillStore(tick.store.db)

    def fits(self) -> bool:
        room = self.room()
        return self.budget.time_left() > 0 and (room is None or room >= READS)

    def room(self) -> int | None:
        """The statements the step may spend on reads: what the tick has left beside a round's claim
        and ends, the sweep's (held), and the invocation's later ticks'."""
        room = self.budget.room()
        return None if room is None else room - CLAIM_STATEMENTS - self.tick.flush - self.budget.for_later

    async def read(self) -> list[_Going]:
        """The pending backfills the step goes on with, a schedule's one after another, each with
        its next occurrences not made yet; none where it ended some whose schedule is gone instead
        (the read's second statement: the next tick goes on with the others)."""
        chosen: dict[str, Pending] = {}
        found, gone = await self.store.pending(BACKFILLS_A_ROUND)
        if gone:
            await self.store.end_gone(gone, self.tick.now)
            log.info("backfills %s ended: their schedule is gone", ", ".join(gone), extra={"event": "backfill_ended"})
            return []
        for pending in found:
            chosen.setdefault(pending.schedule.name, pending)
        plans = []
        for pending in chosen.values():
            state = pending.schedule
            schedule = self.schedule_of(state)
            if schedule is None or schedule.action is None:
                continue  # waits for its action back (the read passed over those paused, removed or running)
            due = own_from(schedule.timing, state)
            end = min(pending.end, due - 1)
            try:
                calls = to_backfill(schedule.timing, due, state.first_tick, pending.start, pending.end, LOOKAHEAD)
            except Exception:
                log.exception("%s: the occurrences to backfill could not be worked out", state.name,
                              extra={"event": "backfill_unplanned", "schedule": state.name})
                continue
            plans.append((pending, schedule, end, calls))
        room = self.room()  # the made check takes a statement a ROWS_PER_STATEMENT occurrences: those it has room for
        while room is not None and len(plans) > 1 and sum(len(c) for *_, c in plans) > room * ROWS_PER_STATEMENT:
            plans.pop()
        made = await self.store.made([(p.schedule.name, c.at) for p, _, _, calls in plans for c in calls])
        going = []
        for pending, schedule, end, calls in plans:
            todo = [c for c in calls if (schedule.name, c.at) not in made]
            following = calls[-1].at + 1 if len(calls) == LOOKAHEAD else end + 1 if end + 1 > pending.start else None
            going.append(_Going(pending, schedule, todo, following))
        return going

    def time_now(self) -> int:
        """The tick's own time as it goes on: its time, what has elapsed since it began, and how late
        its invocation began where that is under a minute (a cron invocation started late). A tick by
        hand for a time far behind the clock is measured on its own time, not the clock's."""
        now = self.tick.now
        late = self.budget.began - now
        return now + self.budget.elapsed() + (late if 0 < late < MINUTE else 0)

    async def round(self, going: list[_Going]) -> tuple[list[RunReport], bool]:
        """One occurrence of each backfill going on, claimed in one batch and run side by side; or,
        for one with none left, going on past those found made."""
        steps = self.steps(going)
        if not steps:
            return [], False
        lease = self.budget.lease()
        won = await self.store.claim([s for _, s in steps], lease.until, self.tick.now, lease.started)
        for g, s in steps:
            if s.run is not None and s.run in won:
                g.todo.pop(0)
                g.passed = s.next == g.next  # its last: gone on past the rest read
            elif s.run is not None:
                g.dropped = True  # made by another tick, its lease held, or the backfill cancelled
        runs = [(_claim(s), g.schedule) for g, s in steps if s.run in won]
        for claim, _ in runs:
            log.info("%s: backfilling the occurrence at %s, asked for by %s", claim.name, claim.call.at,
                     next(s.who for _, s in steps if s.run == claim.run),
                     extra={"event": "backfill_run", "schedule": claim.name, "trace": claim.trace})
        ran = [replace(r, origin="backfill") for r in await self.run(runs, lease)]
        return ran, bool(won) or any(s.run is None for _, s in steps)

    def steps(self, going: list[_Going]) -> list[tuple[_Going, Step]]:
        steps: list[tuple[_Going, Step]] = []
        for g in going:
            p = g.pending
            if g.dropped or (not g.todo and (g.passed or g.next is None)):
                continue
            if g.todo and p.schedule.due_at - GIVES_WAY <= self.time_now():
                continue  # its own due run comes first
            if not g.todo:
                g.passed = True
                assert g.next is not None
                steps.append((g, Step(p.id, p.schedule.name, g.next, p.who)))  # past its end: done
                continue
            call = g.todo[0]
            if p.schedule.action is not None:
                call = replace(call, input=json.loads(p.schedule.input))  # type: ignore[arg-type]
            following = g.next if len(g.todo) == 1 and g.next is not None else call.at + 1
            steps.append((g, Step(p.id, p.schedule.name, following, p.who, call, run_id(self.tick.now), new_trace())))
        return steps


def _claim(step: Step) -> Claim:
    """The run of a step whose claim was won: for the occurrence `at`, as a due run's claim."""
    call = cast(Call, step.call)
    at = cast(int, call.at)  # an occurrence has its `at`
    return Claim(name=step.name, due=at, next_due=at, run=cast(str, step.run), call=call, trace=step.trace)


@operation("backfill")
async def backfill(tick: TickState, budget: Budget, run: Run,
                   schedule_of: Callable[[State], Schedule | None]) -> list[RunReport]:
    """Rounds of backfilled runs, while each finds something to do and the tick has the time and
    the statements for another (its sweep's held); the backfills read again once the occurrences
    read are made. `run` runs (Claim, Schedule) pairs, the due runs' way; `schedule_of` resolves a
    row to its Schedule."""
    step = _Backfill(tick, budget, run, schedule_of)
    reports: list[RunReport] = []
    going: list[_Going] = []
    for _ in range(ROUNDS):
        if not step.fits():
            break
        try:
            if not any(g.todo for g in going if not g.dropped):
                going = await step.read()
            made, progressed = await step.round(going)
        except Exception:
            log.exception("the backfill step failed; the next tick goes on with it", extra={"event": "backfill_failed"})
            break
        reports += made
        if not progressed:
            break
    return reports
