"""The scheduling rules as a table (tick/plan.py): a due row and the tick's time in, the claims
out, no database. Each row is named for the rule it checks."""

from dataclasses import replace

import pytest
from helpers import calendar, every

from tickwork.tick.declared import coalescing_key
from tickwork.grid import Every
from tickwork.kinds.once import Once
from tickwork.model import Code, Retry
from tickwork.schedule_store import State
from tickwork.tick.plan import plan
from tickwork.times import MINUTE, NEVER, utc
from tickwork.timing import Call, Owing

NINE = utc("2026-03-02 09:00")
MONDAY_NINE = calendar("0 9 * * 1")  # 2026-03-02 is a Monday
LATE_CALENDAR = calendar("0 9 * * 1", overdue=5 * MINUTE)
HOLIDAY = replace(LATE_CALENDAR, timing=replace(LATE_CALENDAR.timing, skip=(("2026-03-02", "holidays"),)))
CENSUS = every(15)
GONE = replace(CENSUS, action=None)
RETRIED = replace(CENSUS, retry=Retry(3, MINUTE))


def row(due_at=NINE, form="every 900000", paused=False, lease_run=None, lease_until=None, **fields):
    return State("census", 15 * MINUTE, due_at, paused, lease_run, lease_until, NINE - MINUTE, NINE - MINUTE, form,
                 **fields)


def held(until=NINE + MINUTE, **fields):
    return row(lease_run="r", lease_until=until, **fields)


def handed(**fields):
    return row(action="app:census", timing="{}", input="null", **fields)


def pending_retry(**fields):
    return row(retry_attempt=2, retry_due=NINE - 5 * MINUTE, retry_call=Call(at=NINE - 5 * MINUTE),
               **{"retry_next": NINE + 10 * MINUTE, **fields})


# (rule, schedule, row, now, claims its moment) -> [(reason, due, next due, attempt, by hand, moment)]
RULES = [
    ("a due row runs, its next due time one interval on",
     CENSUS, row(), NINE, False, [(None, NINE, NINE + 15 * MINUTE, 1, None, None)]),
    ("a paused row is skipped paused",
     CENSUS, row(paused=True), NINE, False, [(Code.PAUSED, NINE, NINE + 15 * MINUTE, 1, None, None)]),
    ("an interval held by its own run is skipped running",
     CENSUS, held(), NINE, False, [(Code.RUNNING, NINE, NINE + 15 * MINUTE, 1, None, None)]),
    ("a calendar held by its own run owes its call until the run ends",
     MONDAY_NINE, held(form=MONDAY_NINE.timing.form), NINE, False, []),
    ("a lease lapsed by the invocation's clock holds nothing",
     CENSUS, held(until=NINE), NINE, False, [(None, NINE, NINE + 15 * MINUTE, 1, None, None)]),
    ("a call later than its overdue rule allows is skipped overdue",
     LATE_CALENDAR, row(form=LATE_CALENDAR.timing.form), NINE + 6 * MINUTE, False,
     [(Code.OVERDUE, NINE, utc("2026-03-09 09:00"), 1, None, None)]),
    ("a call within its overdue rule runs",
     LATE_CALENDAR, row(form=LATE_CALENDAR.timing.form), NINE + 4 * MINUTE, False,
     [(None, NINE, utc("2026-03-09 09:00"), 1, None, None)]),
    ("a call as late as its overdue rule allows runs",
     LATE_CALENDAR, row(form=LATE_CALENDAR.timing.form), NINE + 5 * MINUTE, False,
     [(None, NINE, utc("2026-03-09 09:00"), 1, None, None)]),
    ("an every call later than its overdue rule allows after its grid time is skipped overdue",
     replace(CENSUS, timing=Every(15 * MINUTE, overdue=5 * MINUTE)), row(), NINE + 6 * MINUTE, False,
     [(Code.OVERDUE, NINE, NINE + 15 * MINUTE, 1, None, None)]),
    ("an every call within its overdue rule runs",
     replace(CENSUS, timing=Every(15 * MINUTE, overdue=5 * MINUTE)), row(), NINE + 5 * MINUTE, False,
     [(None, NINE, NINE + 15 * MINUTE, 1, None, None)]),
    ("a calendar's call on one of its skip dates is skipped skip_date, not overdue: it was never owed",
     HOLIDAY, row(form=HOLIDAY.timing.form), NINE + 6 * MINUTE, False,
     [(Code.SKIP_DATE, NINE, utc("2026-03-09 09:00"), 1, None, None)]),
    ("a paused calendar on a skip date is skipped paused",
     HOLIDAY, row(form=HOLIDAY.timing.form, paused=True), NINE, False,
     [(Code.PAUSED, NINE, utc("2026-03-09 09:00"), 1, None, None)]),
    ("calendars sharing an action claim their moment",
     MONDAY_NINE, row(form=MONDAY_NINE.timing.form), NINE, True,
     [(None, NINE, utc("2026-03-09 09:00"), 1, None, coalescing_key(MONDAY_NINE))]),
    ("a skipped call claims no moment",
     MONDAY_NINE, row(form=MONDAY_NINE.timing.form, paused=True), NINE, True,
     [(Code.PAUSED, NINE, utc("2026-03-09 09:00"), 1, None, None)]),
    ("a handed-over row whose action is gone ends action_gone",
     GONE, handed(), NINE, False, [(Code.ACTION_GONE, NINE, NEVER, 1, None, None)]),
    ("a handed-over row past its expiry with nothing owed from before ends expired",
     CENSUS, handed(expires_at=NINE), NINE, False, [(Code.EXPIRED, NINE, NEVER, 1, None, None)]),
    ("a call owed from before the expiry is made, and the schedule is done",
     CENSUS, handed(expires_at=NINE + MINUTE, due_at=NINE), NINE + 20 * MINUTE, False,
     [(None, NINE, NEVER, 1, None, None)]),
    ("a call owed from before the expiry but later than overdue allows ends expired",
     replace(CENSUS, timing=Every(15 * MINUTE, overdue=MINUTE)), handed(expires_at=NINE + MINUTE),
     NINE + 20 * MINUTE, False, [(Code.EXPIRED, NINE, NEVER, 1, None, None)]),
    ("a run asked for by hand ahead of the due time runs now, moving no grid",
     CENSUS, row(due_at=NINE + 5 * MINUTE, run_requested_at=NINE - MINUTE), NINE, False,
     [(None, NINE + 5 * MINUTE, NINE + 5 * MINUTE, 1, "operator", None)]),
    ("a run asked for by hand ahead waits while the lease is held",
     CENSUS, held(due_at=NINE + 5 * MINUTE, run_requested_at=NINE - MINUTE), NINE, False, []),
    ("a run asked for by hand ahead waits while the schedule is paused",
     CENSUS, row(due_at=NINE + 5 * MINUTE, run_requested_at=NINE - MINUTE, paused=True), NINE, False, []),
    ("a pending retry makes its attempt for the due time it is for",
     CENSUS, pending_retry(), NINE, False, [(None, NINE, NINE + 10 * MINUTE, 2, None, None)]),
    ("a pending retry waits while a run by hand holds the lease",
     CENSUS, pending_retry(lease_run="r", lease_until=NINE + MINUTE), NINE, False, []),
    ("a pending retry of a paused schedule is skipped paused",
     CENSUS, pending_retry(paused=True), NINE, False, [(Code.PAUSED, NINE, NINE + 10 * MINUTE, 2, None, None)]),
    ("a pending retry whose next due time came is superseded, and that due time dealt with",
     CENSUS, pending_retry(retry_next=NINE), NINE, False,
     [(Code.SUPERSEDED, NINE, NINE, 2, None, None), (None, NINE, NINE + 15 * MINUTE, 1, None, None)]),
]


@pytest.mark.parametrize("schedule, state, now, moment, expected", [r[1:] for r in RULES], ids=[r[0] for r in RULES])
def test_the_rule(schedule, state, now, moment, expected):
    claims = plan(schedule, state, now, Owing(now), clock=now, claims_moment=moment)
    assert [(c.reason, c.due, c.next_due, c.attempt, c.by_hand, c.moment) for c in claims] == expected


# What a claim carries beside its reason and due times: (rule, schedule, row, now) -> [{field: value}]
# for each claim, only the fields the rule is about.
CARRIED = [
    ("a due run of a schedule with retries schedules one where it fails",
     RETRIED, row(), NINE, [dict(retries=True, requested=None, by_hand=None)]),
    ("a run asked for by hand at its due time answers the request and schedules no retry",
     RETRIED, row(run_requested_at=NINE - MINUTE, run_requested_by="ops"), NINE,
     [dict(reason=None, requested=NINE - MINUTE, by_hand="ops", retries=False)]),
    ("a skipped call schedules no retry",
     RETRIED, row(paused=True), NINE, [dict(reason=Code.PAUSED, retries=False)]),
    ("a skip answers no request and schedules no retry",
     RETRIED, row(run_requested_at=NINE - MINUTE, run_requested_by="ops", paused=True), NINE,
     [dict(reason=Code.PAUSED, requested=None, by_hand=None, retries=False)]),
    ("a pending retry's attempt makes the call it is for again, for its due time, and schedules the next",
     RETRIED, pending_retry(), NINE,
     [dict(reason=None, call=Call(at=NINE - 5 * MINUTE), for_due=NINE - 5 * MINUTE, retrying=2, retries=True)]),
    ("a pending retry of a paused schedule schedules none",
     RETRIED, pending_retry(paused=True), NINE, [dict(reason=Code.PAUSED, retries=False)]),
    ("a run asked for by hand ahead carries the pending retry the row holds",
     CENSUS, row(due_at=NINE + 5 * MINUTE, run_requested_at=NINE - MINUTE, retry_attempt=2), NINE,
     [dict(reason=None, requested=NINE - MINUTE, retrying=2)]),
    ("a one-off moment asked for by hand ahead is made now, once: its due time moves past it",
     replace(CENSUS, timing=Once(NINE + 5 * MINUTE)), handed(due_at=NINE + 5 * MINUTE, run_requested_at=NINE - MINUTE),
     NINE, [dict(reason=None, call=Call(at=NINE + 5 * MINUTE), due=NINE + 5 * MINUTE, next_due=NEVER)]),
    ("a handed-over interval's call is for its latest slot",
     CENSUS, handed(), NINE + 20 * MINUTE, [dict(reason=None, call=Call(at=NINE + 15 * MINUTE))]),
    ("the call owed from before the expiry is for its slot before the expiry",
     CENSUS, handed(expires_at=NINE + MINUTE), NINE + 20 * MINUTE, [dict(reason=None, call=Call(at=NINE))]),
    ("a call owing several occurrences covers them",
     CENSUS, row(), NINE + 46 * MINUTE, [dict(covers=(4, NINE, NINE + 45 * MINUTE))]),
    ("a call owing one occurrence covers none",
     CENSUS, row(), NINE + 14 * MINUTE, [dict(covers=None)]),
]


def carried(claim, field):
    value = getattr(claim, field)
    return (value.count, value.first, value.last) if field == "covers" and value is not None else value


@pytest.mark.parametrize("schedule, state, now, expected", [r[1:] for r in CARRIED], ids=[r[0] for r in CARRIED])
def test_what_the_claim_carries(schedule, state, now, expected):
    claims = plan(schedule, state, now, Owing(now), clock=now)
    assert len(claims) == len(expected)
    got = [{field: carried(c, field) for field in fields} for c, fields in zip(claims, expected, strict=True)]
    assert got == expected


def test_a_claim_that_runs_has_a_trace_and_a_skip_none():
    [run] = plan(CENSUS, row(), NINE, Owing(NINE), clock=NINE)
    [skip] = plan(CENSUS, row(paused=True), NINE, Owing(NINE), clock=NINE)
    assert (run.trace is not None, skip.trace) == (True, None)


def test_a_timing_that_fails_leaves_the_row_due():
    class Broken(type(CENSUS.timing)):
        def owed(self, due, now):
            raise ValueError("broken")

    broken = replace(CENSUS, timing=Broken(15 * MINUTE))
    assert plan(broken, row(), NINE, Owing(NINE), clock=NINE) == []
