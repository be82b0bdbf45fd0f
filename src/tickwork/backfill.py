"""The tick's backfill step: after the due runs, while the tick's budget and statements last, the
next occurrences of the backfills operators asked for (`tickwork backfill`), oldest first.

Each occurrence is made once per (schedule, at) however ticks race, under the schedule's own
lease (never two runs of a schedule at once), so a schedule makes one occurrence a round; what a
backfilled run emits is kept with its end and delivered as any run's is. The pending backfills,
and which of their next occurrences are made, are read once for many rounds: a round costs its
claim and its ends, so a tick makes as many as its statements allow.
"""

import json
import logging
from dataclasses import dataclass, replace

from .backfill_store import CLAIM_STATEMENTS, ONE_OFF_DONE, BackfillStore, Pending, Step
from .context import new_trace
from .schedule_store import ROWS_PER_STATEMENT, Claim, State, run_id
from .times import MINUTE, SECOND, iso
from .timing import COUNTED

log = logging.getLogger("tickwork")

DRY_RUN_MOST = 1000  # occurrences an operator's command lists or counts at the most

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
    todo: list
    next: int | None
    passed: bool = False  # gone on past occurrences found made, with no run
    dropped: bool = False  # a claim of it was not won: left for the next tick


async def backfill(tick) -> list:
    """Rounds of backfilled runs, while each finds something to do and the tick has the time and
    the statements for another (its sweep's kept aside); the backfills read again once the
    occurrences read are made."""
    reports: list = []
    store, going = BackfillStore(tick.state.store.db), []
    for _ in range(ROUNDS):
        if not _fits(tick):
            break
        try:
            if not any(g.todo for g in going if not g.dropped):
                going = await _read(tick, store)
            made, progressed = await _round(tick, store, going)
        except Exception:
            log.exception("the backfill step failed; the next tick goes on with it")
            break
        reports += made
        if not progressed:
            break
    return reports


def _fits(tick) -> bool:
    room = _room(tick)
    return tick.budget.time_left() > 0 and (room is None or room >= READS)


def _room(tick) -> int | None:
    """The statements the step may spend on reads: what the tick has left beside a round's claim
    and ends, the sweep's, and the invocation's later ticks'."""
    room = tick.budget.room()  # the sweep's held
    return None if room is None else room - CLAIM_STATEMENTS - tick.state.flush - tick.budget.for_later


async def _read(tick, store: BackfillStore) -> list[_Going]:
    """The pending backfills the step goes on with, a schedule's one after another, each with
    its next occurrences not made yet; none where it ended some whose schedule is gone instead
    (the read's second statement: the next tick goes on with the others)."""
    chosen: dict[str, Pending] = {}
    found, gone = await store.pending(BACKFILLS_A_ROUND)
    if gone:
        await store.end_gone(gone, tick.state.now)
        log.info("backfills %s ended: their schedule is gone", ", ".join(gone))
        return []
    for pending in found:
        chosen.setdefault(pending.schedule.name, pending)
    plans = []
    for pending in chosen.values():
        state = pending.schedule
        schedule = tick.schedule_of(state)
        if schedule is None or schedule.action is None:
            continue  # waits for its action back (the read passed over those paused, removed or running)
        due = own_from(schedule.timing, state)
        end = min(pending.end, due - 1)
        try:
            calls = to_backfill(schedule.timing, due, state.first_tick, pending.start, pending.end, LOOKAHEAD)
        except Exception:
            log.exception("%s: the occurrences to backfill could not be worked out", state.name)
            continue
        plans.append((pending, schedule, end, calls))
    room = _room(tick)  # the made check takes a statement a ROWS_PER_STATEMENT occurrences: those it has room for
    while room is not None and len(plans) > 1 and sum(len(c) for *_, c in plans) > room * ROWS_PER_STATEMENT:
        plans.pop()
    made = await store.made([(p.schedule.name, c.at) for p, _, _, calls in plans for c in calls])
    going = []
    for pending, schedule, end, calls in plans:
        tick.due[schedule.name] = schedule
        todo = [c for c in calls if (schedule.name, c.at) not in made]
        following = calls[-1].at + 1 if len(calls) == LOOKAHEAD else end + 1 if end + 1 > pending.start else None
        going.append(_Going(pending, todo, following))
    return going


def _time_now(tick) -> int:
    """The tick's own time as it goes on: its time, what has elapsed since it began, and how late
    its invocation began where that is under a minute (a cron invocation started late). A tick by
    hand for a time far behind the clock is measured on its own time, not the clock's."""
    late = tick.wall - tick.state.now
    return tick.state.now + tick.budget.elapsed() + (late if 0 < late < MINUTE else 0)


async def _round(tick, store: BackfillStore, going: list[_Going]) -> tuple[list, bool]:
    """One occurrence of each backfill going on, claimed in one batch and run side by side; or,
    for one with none left, going on past those found made."""
    steps: list[tuple[_Going, Step]] = []
    for g in going:
        p = g.pending
        if g.dropped or (not g.todo and (g.passed or g.next is None)):
            continue
        if g.todo and p.schedule.due_at - GIVES_WAY <= _time_now(tick):
            continue  # its own due run comes first
        if not g.todo:
            g.passed = True
            steps.append((g, Step(p.id, p.schedule.name, g.next, p.who)))  # past its end: done
            continue
        call = g.todo[0]
        if p.schedule.action is not None:
            call = replace(call, input=json.loads(p.schedule.input))
        following = g.next if len(g.todo) == 1 and g.next is not None else call.at + 1
        steps.append((g, Step(p.id, p.schedule.name, following, p.who, call, run_id(tick.state.now), new_trace())))
    if not steps:
        return [], False
    lease = tick.budget.lease()
    won = await store.claim([s for _, s in steps], lease.until, tick.state.now, lease.started)
    for g, s in steps:
        if s.run is not None and s.run in won:
            g.todo.pop(0)
            g.passed = s.next == g.next  # its last: gone on past the rest read
        elif s.run is not None:
            g.dropped = True  # made by another tick, its lease held, or the backfill cancelled
    runs = [Claim(s.name, s.call.at, s.call.at, s.run, s.call, trace=s.trace) for _, s in steps if s.run in won]
    for claim in runs:
        log.info("%s: backfilling the occurrence at %s, asked for by %s", claim.name, claim.call.at,
                 next(s.who for _, s in steps if s.run == claim.run))
    return await tick.run_claimed(runs, lease), bool(won) or any(s.run is None for _, s in steps)


def timing_of_row(row: dict):
    """A schedule's timing from its state row, for the operator's command: a handed-over one's
    from its JSON, a declared one's from its form (what the tick keeps of it)."""
    from .app import timing_of
    from .calendars import Calendar, CronCalendar
    from .grid import Every
    from .once import Once
    from .pulses import Pulse

    if row.get("timing"):
        return timing_of(json.loads(row["timing"]))
    form = row.get("form") or f"every {int(row['every_ms'])}"
    kind, _, rest = form.partition(" ")
    if kind == "every":
        return Every(int(rest))
    if kind == "pulse":
        cycle, _, intervals = rest.partition("/")
        return Pulse(int(cycle), int(intervals))
    if kind == "once":
        return Once(int(rest))
    if kind == "calendar":
        expression, zone, rules = (part.strip() for part in rest.split("|"))
        named = dict(rule.split("=") for rule in rules.split())
        return Calendar(CronCalendar(expression, zone, named["nonexistent"], named["repeated"]))
    raise ValueError(f"unknown form {form!r}")


def own_from(timing, state: State) -> int:
    """Where the occurrences become the schedule's own, not a backfill's: with a retry pending,
    the occurrence it makes again (its call's `at`; an `every:` grid's or a pulse's call names
    none, and covers the slots up to the next due time it put aside, the last of them its own),
    else the row's due time."""
    if state.retry_attempt is None or state.retry_due is None:
        return state.due_at
    at = state.retry_call.at
    if at is None and state.retry_next is not None:
        covered = timing.covered(state.retry_due, state.retry_next - 1, COUNTED)
        at = None if covered is None else covered.last
    return min(state.due_at, state.retry_due if at is None else at)


def to_backfill(timing, due: int, first_tick: int, start: int, end: int, most: int = DRY_RUN_MOST) -> list:
    """The occurrences from `start` to `end` a backfill would look at: those the schedule owed
    since the tick that first saw it (`first_tick`; a one-off moment handed over for then or
    before was owed from there too), before its due time `due` (from there on they are its
    own), at most `most`."""
    owed_from = min(first_tick + 1, timing.first_due(first_tick))
    return timing.occurrences(due, max(start, owed_from), min(end, due - 1), most)


def backfilled_once_ended(ended: str | None) -> bool:
    """Whether a schedule ended so is still backfilled: a one-off item ends with its call
    (`done`), and where that call did not succeed a backfill makes its moment again, once."""
    return ended == ONE_OFF_DONE


class Refused(ValueError):
    """A backfill that cannot be asked for, with its documented code (`backfill.range_invalid`,
    `backfill.schedule_removed`) and why; nothing was changed."""

    def __init__(self, code: str, why: str):
        self.code = code
        super().__init__(f"{code}: {why}")


@dataclass(frozen=True)
class Plan:
    """What a backfill of `name` from `start` to `end` would make: of the occurrences it looks at
    (`found`, at most DRY_RUN_MOST), those without a succeeded run (`todo`), oldest first."""

    name: str
    start: int
    end: int
    found: list
    todo: list

    @property
    def more(self) -> bool:
        """Whether there may be more than it looked at."""
        return len(self.found) == DRY_RUN_MOST

    @property
    def made_already(self) -> int:
        return len(self.found) - len(self.todo)


def check_range(start: int | None, end: int | None, now: int, names: tuple[str, str] = ("--from", "--to")) -> None:
    """Refuses a range that is not whole, runs backwards, or reaches past `now`; `names`, what
    the operator calls its two ends."""
    first, last = names
    if start is None or end is None:
        raise Refused("backfill.range_invalid", f"a backfill needs both {first} and {last}")
    if start > end:
        raise Refused("backfill.range_invalid", f"{first} {iso(start)} is after {last} {iso(end)}")
    if end > now:
        raise Refused("backfill.range_invalid", f"{last} {iso(end)} is after now ({iso(now)}): occurrences "
                                                f"still to come are the schedule's own")


async def plan(store, now: int, name: str, start: int | None, end: int | None,
               names: tuple[str, str] = ("--from", "--to")) -> Plan | None:
    """What a backfill would make, read through the operator's store (`OperatorStore`), after
    its checks: None where there is no schedule `name`."""
    from .words import when  # the operator's wording, which the tick never needs

    check_range(start, end, now, names)
    row = await store.schedule(name)
    if row is None:
        return None
    if row.get("removed_at") is not None and not backfilled_once_ended(row.get("ended")):
        what = f"ended ({row['ended']})" if row.get("ended") else "no longer declared"
        raise Refused("backfill.schedule_removed", f"`{name}` is {what} since {when(int(row['removed_at']))}: "
                                                   f"there is nothing to backfill")
    timing = timing_of_row(row)
    found = to_backfill(timing, own_from(timing, State.from_row(row)), int(row["first_tick"]), start, end)
    made = await store.made([(name, call.at) for call in found])
    return Plan(name, start, end, found, [call for call in found if (name, call.at) not in made])
