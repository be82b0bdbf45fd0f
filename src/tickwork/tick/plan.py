"""The scheduling rules: what a tick means to do with a due row, as claims (a run's lease, or a
skip with its reason). Pure: a schedule, its row, the tick's time and what it owes in, claims out,
no database; the due step claims them in one batch.

The rules, in the order they are tried (each a function below):
- a pending retry is made for the due time it is for, unless the next due time has come: then it
  is skipped `superseded`, and that due time dealt with as any other (`_retry_rules`);
- a run asked for by hand ahead of the row's due time runs now, for the moment last due, moving
  no grid (`_by_hand_ahead`);
- a schedule held by its own run whose overlap rule buffers (a calendar's, `overlap: buffer`)
  owes its call until the run ends: nothing now (`waits`); one with `overlap: allow` is not held
  by it: the due time runs beside it, a claim of its own (`beside`);
- a handed-over row whose action the app no longer has ends `action_gone`; one past its
  `expires_at` ends `expired`, after the call owed from before unless overdue forbids it
  (`_expired`); a paused row is skipped `paused`, a held one `running`, a calendar's call on one
  of its skip dates `skip_date`, one later than its overdue rule allows `overdue`, neither where
  the operator asked for the run by hand (`_skip_reason`);
- calendars sharing an action claim their moment, so only one of them calls it (`_coalesce_key`).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace

from ..context import new_trace
from .declared import coalescing_key
from ..kinds import runs_beside, waits_while_held
from ..model import Code, Schedule, due_jitter
from ..store.claims import Claim
from ..store.schedules import State
from ..store.sql import run_id
from ..times import NEVER, iso
from ..kinds import Call, Covered, Owing, Timing

log = logging.getLogger("tickwork")

Skip = tuple[str | None, str | None]  # a skip's reason and detail; (None, None) to run


def plan(schedule: Schedule, state: State, now: int, owing: Owing, *, clock: int,
         claims_moment: bool = False) -> list[Claim]:
    """What the tick at `now` means to do with a due row. `clock` is the invocation's clock, which
    leases are compared with; `claims_moment`, whether the schedule is a calendar sharing its action."""
    if state.retry_attempt is None or state.due_at > now:
        claim = _claim(schedule, state, now, owing, clock, claims_moment)
        claims = [] if claim is None else [claim]
    else:
        claims = _retry_rules(schedule, state, now, owing, clock, claims_moment)
    if state.concurrency_key is None or state.concurrency_limit is None:
        return claims
    # A row naming a concurrency key: its lease is taken within the key's limit, or not at all.
    # Its key counts one run a row: a run beside another waits for its slot as any claim does.
    limited = (state.concurrency_key, state.concurrency_limit)
    return [replace(c, concurrency=limited, beside=False) if c.reason is None else c for c in claims]


def _retry_rules(schedule: Schedule, state: State, now: int, owing: Owing, clock: int,
                 claims_moment: bool) -> list[Claim]:
    """A pending retry: made for the due time it is for; skipped `superseded` once the next due
    time, put aside, has come (that due time dealt with in the same batch); waiting while a run
    by hand holds the lease; skipped `paused` while the schedule is."""
    if state.retry_next is not None and state.retry_next <= now:
        due = state.retry_due
        detail = (f"the next due time, {iso(state.retry_next)}, came before attempt {state.retry_attempt}"
                  f" for {iso(due)}")  # type: ignore[arg-type]  # a pending retry keeps its due time
        superseded = replace(_retried(schedule, state, now), reason=Code.SUPERSEDED, detail=detail, trace=None)
        following = _claim(schedule, replace(state, due_at=state.retry_next, retry_attempt=None), now, owing, clock,
                           claims_moment) if _jitter_came(schedule, state.retry_next, now) else None
        return [superseded] + ([following] if following is not None else [])
    if state.lease_live(clock) and not _beside(schedule, state):
        return []  # a run by hand holds the lease: the retry waits for it
    claim = _retried(schedule, state, now)
    if state.paused:
        claim = replace(claim, reason=Code.PAUSED, trace=None, retries=False)
    return [claim]


def _retried(schedule: Schedule, state: State, now: int) -> Claim:
    """A pending retry's attempt: the call it is for again, its due time then the one put aside."""
    call = replace(state.retry_call, input=None if state.input is None else json.loads(state.input))
    assert state.retry_attempt is not None  # only a pending retry is retried
    return Claim(name=schedule.name, due=state.due_at, next_due=state.retry_next,  # type: ignore[arg-type]
                 run=run_id(now), call=call,
                 trace=new_trace(), for_due=state.retry_due, attempt=state.retry_attempt,
                 retrying=state.retry_attempt, retries=schedule.retry is not None, beside=beside(schedule))


def _claim(schedule: Schedule, state: State, now: int, owing: Owing, clock: int, claims_moment: bool) -> Claim | None:
    """What the tick means to do with a due schedule: run it, skip it with a reason, or
    nothing (a calendar held by its own run owes its call until the run ends)."""
    timing = schedule.timing
    try:
        call = owing.owed(timing, state.due_at)
        following = owing.following(timing, state.due_at)
    except Exception:
        log.exception("%s: the tick could not deal with it; it stays due", schedule.name,
                      extra={"event": "schedule_failed", "schedule": schedule.name})
        return None
    if state.action is not None:
        call = replace(call, at=timing.slot(state.due_at, now) if call.at is None else call.at,
                       input=json.loads(state.input))  # type: ignore[arg-type]  # a handed-over row keeps one
    held = state.lease_live(clock) and not _beside(schedule, state)
    if state.due_at > now:  # only asked for by hand: under the same lease, no grid moved
        return None if held or state.paused else _by_hand_ahead(schedule, state, now, owing, call)
    if held and not state.paused and (waits(schedule) or beside(schedule)):
        return None  # owed until the run ends: made late, not lost
    (reason, detail), call, following = _skip_reason(schedule, state, now, call, following, held)
    requested, by_hand = state.run_requested_at, state.run_requested_by
    runs = reason is None
    return Claim(name=schedule.name, due=state.due_at, next_due=following, run=run_id(now), call=call,
                 moment=_coalesce_key(schedule, claims_moment and runs), reason=reason, detail=detail,
                 requested=requested if runs else None, by_hand=by_hand if runs else None,
                 trace=new_trace() if runs else None, retrying=state.retry_attempt,
                 retries=schedule.retry is not None and runs and by_hand is None,
                 covers=_covered(schedule, state, owing), beside=runs and beside(schedule))


def waits(schedule: Schedule) -> bool:
    """Whether a due time the previous run still holds waits for its end (`overlap: buffer`, a
    calendar's rule) rather than being skipped `running` (`overlap: skip`, the rule of `every:` and
    pulses). The one waiting is the row's due time itself, so there is never more than one, and
    a tick that finds the run ended takes its lease as any due time's."""
    return waits_while_held(schedule.overlap, schedule.timing.skips_while_running)


def beside(schedule: Schedule) -> bool:
    """Whether its runs go side by side (`overlap: allow`): each its own claim, the record keeping
    its lease, so a due time the previous run holds is run anyway."""
    return runs_beside(schedule.overlap)


def _beside(schedule: Schedule, state: State) -> bool:
    """`beside`, but for a row naming a concurrency key, whose lease is one a row (the key counts
    it): its due time waits for the run going, not claimed each tick to take nothing."""
    return beside(schedule) and state.concurrency_key is None


def _by_hand_ahead(schedule: Schedule, state: State, now: int, owing: Owing, owed: Call) -> Claim:
    """A run asked for by hand before the row is due: for the moment last due (a calendar's
    latest occurrence, a handed-over interval's latest slot); a one-off moment still ahead is
    made now, once: its due time then moves past it."""
    timing = schedule.timing
    call = replace(owing.owed(timing, 0), input=owed.input)
    if state.action is not None and call.at is None:
        call = replace(call, at=timing.slot(state.due_at, now))
    ahead = call.at is not None and call.at > now
    next_due = timing.following(state.due_at, call.at) if ahead and call.at is not None else state.due_at
    return Claim(name=schedule.name, due=state.due_at, next_due=next_due, run=run_id(now), call=call,
                 requested=state.run_requested_at, by_hand=state.run_requested_by or "operator",
                 trace=new_trace(), retrying=state.retry_attempt, beside=beside(schedule))


def _skip_reason(schedule: Schedule, state: State, now: int, call: Call, following: int,
                 held: bool) -> tuple[Skip, Call, int]:
    """Why a due call is skipped, if it is (the first rule that holds), with the call and next due
    time as the skip or run records them."""
    timing = schedule.timing
    if state.action is not None and schedule.action is None:
        return (Code.ACTION_GONE, f"`{state.action}` is no longer an action of the app; the schedule has ended"), \
            call, NEVER
    if state.expires_at is not None and call.at is not None and call.at >= state.expires_at:
        skip, call = _expired(timing, state, now, call)
        return skip, call, NEVER
    if state.paused:
        return (Code.PAUSED, None), call, following
    if held:
        return (Code.RUNNING, None), call, following
    if state.run_requested_at is not None:
        return (None, None), call, following  # the operator asked: skip dates and overdue bound its own calls
    skipped = None if call.at is None else timing.skipped_on(call.at)
    if skipped is not None:  # decided from the timing alone: no statement asks
        return (Code.SKIP_DATE, skipped), call, following
    late = now - timing.slot(state.due_at, now) if call.at is None else _late(schedule, now, call.at)
    if timing.overdue is not None and late > timing.overdue:
        return (Code.OVERDUE, f"{late} ms late; overdue allows {timing.overdue} ms"), call, following
    return (None, None), call, following


def _jitter_came(schedule: Schedule, due: int, now: int) -> bool:
    """Whether a due time's jittered moment has come: one that supersedes a retry before it has
    is left due (the skip moves the row to it), to run at that moment."""
    return due + due_jitter(schedule.name, due, schedule.jitter) <= now


def _late(schedule: Schedule, now: int, at: int) -> int:
    """How late a call is: from its moment delayed by the schedule's jitter, the moment it was
    meant to run, so that a jitter never makes a call overdue."""
    return now - at - due_jitter(schedule.name, at, schedule.jitter)


def _expired(timing: Timing, state: State, now: int, call: Call) -> tuple[Skip, Call]:
    """A row past its `expires_at`: the call owed from before it expired is made, then the
    schedule is done, unless that call is later than overdue allows; with none owed (or only on
    skip dates), it ends."""
    assert state.expires_at is not None
    last = timing.owed(state.due_at, state.expires_at - 1)
    last_at = timing.slot(state.due_at, state.expires_at - 1) if last.at is None else last.at
    late = now - last_at
    if not state.due_at <= last_at < state.expires_at or timing.skipped_on(last_at) is not None:  # none owed
        return (Code.EXPIRED, f"it expired at {iso(state.expires_at)}; the schedule has ended"), call
    call = replace(last, at=last_at, input=call.input)
    if timing.overdue is not None and late > timing.overdue:
        return (Code.EXPIRED, (f"it expired at {iso(state.expires_at)}, and the call owed from before is {late} ms "
                               f"late; overdue allows {timing.overdue} ms; the schedule has ended")), call
    return (None, None), call


def _coalesce_key(schedule: Schedule, claims: bool) -> str | None:
    """The moment a calendar sharing its action claims, so that one of them makes the call."""
    return coalescing_key(schedule) if claims else None


def _covered(schedule: Schedule, state: State, owing: Owing) -> Covered | None:
    """The occurrences a due call covers, where a tick finds it owing several."""
    try:
        return owing.covered(schedule.timing, state.due_at)
    except Exception:
        log.exception("%s: the occurrences it owed could not be counted", schedule.name,
                      extra={"event": "missed_uncounted", "schedule": schedule.name})
        return None
