"""Runs through Cloudflare Workflows (`workflow: REPORTS`): a run creates the binding's instance under
its own id and stays `running`; a later tick asks the open instances their status and records
the ends of those that settled, as any run's end (retries, alerts, `times`).

The run's id is the instance's: a claim made again (a retried batch, racing ticks that both read
it back) creates nothing more, the binding answering that the id exists. An instance's status,
settled: `complete` is succeeded (its output kept as the run's detail, bounded), `errored` failed
`workflow_errored` (its error kept), `terminated` failed `terminated` (never retried: it was
stopped on purpose); any other status leaves the run going, until its limit, when the instance
is terminated and the run failed `deadline_exceeded`."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from ..adapters.workflows import Workflow, already_started, not_found, workflow
from ..database import operation
from ..kinds import Call
from ..model import LEASE_GRACE, WORKFLOW_DEFAULT_LIMIT, Code, Kind, Outcome, Schedule
from ..times import MINUTE
from ..store.claims import Claim
from ..store.ends import End
from ..store.schedules import State
from ..store.workflow_runs import OpenRun, WorkflowRuns, opening
from .budget import Budget, chunked
from .ends import Recorder
from .reports import RunReport
from .retrying import failed_at, retried
from .rows import schedule_of
from .state import TickState

log = logging.getLogger("tickwork")

Verdict = tuple[Outcome, str | None, str | None, str | None]  # outcome, code, kind, detail

ASKED_PER_TICK = 50  # open instances a tick asks about at most, those asked longest ago first
ASK_WITHIN = 10_000  # ms a status call may take before the instance is asked again at a later tick
KEPT = 2000  # characters of an instance's output or error its run's detail keeps
SETTLE = 4  # statements beside the ends: the read, and the rows closed and asked again (two chunks)
# A run's lease outlasts its limit by this, so the ticks after the limit terminate its instance and
# record it `deadline_exceeded` before the lapsed leases' step would end it `lease_expired`.
SETTLE_GRACE = 5 * MINUTE
# An open row whose instance the binding does not find this long after its start was never created
# (its tick stopped between writing the row and creating it); sooner, its tick may be creating it.
UNCREATED_AFTER = MINUTE


def claim_kept(claim: Claim) -> dict[str, Any]:
    """What a settling tick needs of the claim a run was for: its retry makes the same call."""
    c = claim.call
    return {"due": claim.due_for, "attempt": claim.attempt, "retries": claim.retries, "at": c.at, "n": c.n,
            "i": c.i, "dst": c.dst, "beside": claim.beside,
            "missed": claim.covers.count - 1 if claim.covers is not None else 0}  # its settled point's


def params_of(claim: Claim) -> dict[str, Any]:
    """What the instance is created with (its `event.payload`): the call's moment, the schedule,
    the due time and attempt, a pulse's share, a handed-over item's input, and the run's trace."""
    c = claim.call
    return {"schedule": claim.name, "run": claim.run, "at": claim.due_for if c.at is None else c.at,
            "due": claim.due_for, "attempt": claim.attempt, "n": c.n, "i": c.i, "input": c.input,
            "trace": claim.trace}


async def start(state: TickState, budget: Budget, schedule: Schedule, claim: Claim,
                started: int) -> tuple[Verdict, bool]:
    """Creates the run's instance, id the run's: the verdict its end records now (`running`, or
    failed where the binding refused), and whether its instance is open. Its row and lease
    (store.workflow_runs) are written before the instance is created, so a tick killed after
    creating it leaves the run to a later tick's settling, never to the lapsed leases' window
    (whose retry would create a second instance and lose the first)."""
    binding = schedule.workflow
    assert binding is not None
    until = started + (schedule.limit or WORKFLOW_DEFAULT_LIMIT)
    try:
        await state.store.db.batch(opening(claim.run, claim.name, binding, started, until, until + SETTLE_GRACE,
                                           claim_kept(claim), state.now + 1, claim.beside))
        async with asyncio.timeout(max(budget.time_left(), 0) / 1000):
            await workflow(binding).create(claim.run, params_of(claim))
        said = f"Workflow {binding} instance {claim.run} started"
    except Exception as error:
        if not already_started(error):
            log.error("%s: the Workflow %s did not create the instance: %s", claim.name, binding, error,
                      extra={"event": "workflow_unstarted", "schedule": claim.name, "trace": claim.trace})
            return (Outcome.FAILED, Code.WORKFLOW_UNSTARTED, Kind.RAISED,
                    f"the Workflow {binding} did not create instance {claim.run}: {type(error).__name__}: "
                    f"{error}"[:KEPT]), False
        said = f"Workflow {binding} instance {claim.run} started (created already: the claim was made again)"
    return (Outcome.RUNNING, None, None, said), True


def verdict_of(status: dict[str, Any]) -> Verdict | None:
    """A settled instance's verdict, from its status; None while it goes on."""
    said = status.get("status")
    if said == "complete":
        output = status.get("output")
        return Outcome.SUCCEEDED, None, None, None if output is None else _bounded(output)
    if said == "errored":
        error = status.get("error")
        if isinstance(error, dict):
            error = ": ".join(str(error[k]) for k in ("name", "message") if error.get(k))
        return Outcome.FAILED, Code.WORKFLOW_ERRORED, Kind.RAISED, _bounded(error or "the instance errored")
    if said == "terminated":
        return Outcome.FAILED, Code.TERMINATED, Kind.UNRETRIED, "the Workflow instance was terminated"
    return None


@operation("workflows")
async def settle(tick: TickState, budget: Budget, recorder: Recorder) -> None:
    """Asks the open instances due to be asked (the first read said whether any is) their status,
    records the ends of those settled, and asks the rest again at a later tick."""
    if not tick.workflows_due or not budget.fits(SETTLE + tick.flush * chunked(ASKED_PER_TICK)):
        return
    store = WorkflowRuns(tick.store.db)
    try:
        open_runs = await store.open(tick.now, ASKED_PER_TICK)
        verdicts = await asyncio.gather(*(_asked(run, budget) for run in open_runs))
        ends = [_end(tick, budget, run, verdict) for run, verdict in zip(open_runs, verdicts, strict=True)
                if verdict is not None and run.outcome == Outcome.RUNNING]
        if ends:
            await recorder.write([(end, []) for end in ends], budget.wall() + LEASE_GRACE)
        done = [run.run for run, verdict in zip(open_runs, verdicts, strict=True)
                if verdict is not None or run.outcome != Outcome.RUNNING]
        # Those going on are marked asked only where more are open than a tick asks about, so
        # the next tick asks the others first; else each would cost a row written each tick.
        going = [run.run for run in open_runs if run.run not in done] if len(open_runs) >= ASKED_PER_TICK else []
        await store.close(done, going, tick.now + 1)
    except Exception:
        log.exception("the open Workflow runs could not be settled; a later tick asks again",
                      extra={"event": "workflows_unsettled"})


async def _asked(run: OpenRun, budget: Budget) -> Verdict | None:
    """The run's verdict from its instance's status; past its limit, terminated. None while it
    goes on, or where the binding did not answer."""
    try:
        async with asyncio.timeout(ASK_WITHIN / 1000):
            binding = workflow(run.binding)
            if run.terminate_by is not None and run.outcome == Outcome.RUNNING:
                return await _terminated(binding, run, run.terminate_by)
            verdict = verdict_of(await binding.status(run.run))
            if verdict is None and (run.outcome != Outcome.RUNNING or budget.wall() >= run.until):
                await binding.terminate(run.run)  # past its limit, or its record ended (its lease lapsed)
                limit = (run.until - run.started) // MINUTE
                verdict = (Outcome.FAILED, Code.DEADLINE_EXCEEDED, Kind.DEADLINE,
                           f"the Workflow instance ran past its limit of {limit} minutes and was terminated")
            return verdict
    except Exception as error:
        if not_found(error) and run.outcome == Outcome.RUNNING and budget.wall() >= run.started + UNCREATED_AFTER:
            return (Outcome.FAILED, Code.WORKFLOW_UNSTARTED, Kind.RAISED,
                    f"the Workflow {run.binding} has no instance {run.run}: the tick that claimed the run "
                    "stopped before creating it")
        log.warning("%s: the Workflow %s did not say how instance %s is: %s", run.name, run.binding, run.run, error,
                    extra={"event": "workflow_status_unread", "schedule": run.name})
        return None


async def _terminated(binding: Workflow, run: OpenRun, who: str) -> Verdict | None:
    """An operator's termination, made: the instance terminated (unless it settled meanwhile, which
    its own status then says), the run failed `terminated`, saying who asked."""
    try:
        await binding.terminate(run.run)
    except Exception as error:  # ended already, or the binding failed: its status says which
        log.warning("%s: the Workflow %s did not terminate instance %s: %s", run.name, run.binding, run.run, error,
                    extra={"event": "workflow_unterminated", "schedule": run.name})
    verdict = verdict_of(await binding.status(run.run))
    if verdict is not None and verdict[1] == Code.TERMINATED:
        return Outcome.FAILED, Code.TERMINATED, Kind.UNRETRIED, f"the Workflow instance was terminated by {who}"
    return verdict


def _end(tick: TickState, budget: Budget, run: OpenRun, verdict: Verdict) -> End:
    outcome, code, kind, detail = verdict
    ended = budget.wall()
    kept = run.claim
    schedule = _schedule_of(tick, run)
    retry: dict[str, Any] = {}
    claim = Claim(run.name, kept["due"], kept["due"], run.run, Call(kept["at"], kept["n"], kept["i"], kept["dst"]),
                  trace=run.trace, for_due=kept["due"], attempt=kept["attempt"], retries=bool(kept["retries"]))
    if outcome == Outcome.FAILED and schedule is not None:
        retry, kind = retried(schedule, claim, failed_at(tick.now, budget.began, ended), code, kind)
    tick.traces[run.run] = run.trace
    tick.reports.append(RunReport(run.name, claim.due_for, tick.now, outcome, code, kind, detail, run.started, ended,
                                  claim.call, trace=run.trace, attempt=claim.attempt,
                                  next_attempt_at=retry.get("retry"), missed=kept.get("missed", 0),
                                  origin=run.origin))
    times = schedule.times if schedule is not None and not retry else None
    return End(run.name, run.run, outcome, code, kind, detail, ended, **retry, times=times,
               beside=bool(kept.get("beside")))


def _schedule_of(tick: TickState, run: OpenRun) -> Schedule | None:
    """The run's schedule: a declared one by its name, a handed-over one from its row's timing."""
    if run.timing is None:
        return tick.declared.by_name.get(run.name)
    return schedule_of(tick, State(run.name, 0, 0, False, None, None, 0, 0, "", action=run.action,
                                   timing=run.timing))


def _bounded(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= KEPT else text[: KEPT - 12] + " ... (kept)"
