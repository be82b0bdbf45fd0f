"""The rows reconciled with what the app declares: after a deploy, new schedules get rows,
changed forms and calendars declared again are rebased (owing nothing from while they were gone),
and rows no longer declared are marked removed; and calendars handed over before tickwork read
their days as Vixie cron does are rebased before any call, as declared ones are."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Iterable
from dataclasses import replace

from ..kinds.forms import VIXIE_DAYS, timing_part
from ..model import Schedule
from ..database import operation
from ..store.schedules import Seed, State, Undeclared
from ..store.sql import digest, json_chunks
from ..kinds import COUNTED, Timing
from .budget import Budget
from .state import TickState

if TYPE_CHECKING:
    from ..store.deploys import Version

log = logging.getLogger("tickwork")


Due = list[tuple[Schedule, State]]


@operation("rebase")
async def rebase_handed_over(tick: TickState, budget: Budget, due: Due) -> Due:
    """Calendars handed over before tickwork read their days as Vixie cron does get their due
    times worked out again, as declared ones do, before any call: none is called at a moment
    kept for the old reading. Those due no more leave the tick's due list."""
    stale = [(state, _seed(schedule, schedule.timing.rebased(state.due_at, tick.now, state.form)))
             for schedule, state in due if state.action is not None and state.removed_at is None
             and not state.lease_live(budget.began) and state.form + VIXIE_DAYS == schedule.timing.form]
    if not stale:
        return due
    left_out = {state.name for state, _ in stale}
    if budget.fits(len(json_chunks([[seed.name, seed.every, seed.form, seed.due_at, state.form, state.due_at]
                                  for state, seed in stale]))):  # as the store's REBASE rows
        try:
            await tick.store.reconcile([], stale, [], None, tick.now)
            left_out = set()
        except Exception:
            log.exception("calendars handed over could not be rebased; they wait for the next tick",
                          extra={"event": "rebase_failed"})
    moved, kept = {state.name: seed.due_at for state, seed in stale}, []
    for schedule, state in due:
        if state.name in moved:
            if state.name in left_out:
                continue
            state = replace(state, due_at=moved[state.name], retry_attempt=None)  # REBASE drops a retry
            if state.due_at > tick.now and state.run_requested_at is None:
                continue  # nothing of the new reading is owed yet
        kept.append((schedule, state))
    return kept


@operation("reconcile")
async def reconcile(tick: TickState, fingerprint: str, ticked_before: bool = True) -> None:
    """New schedules get rows, changed forms and calendars declared again are rebased, and
    rows no longer declared are marked removed; and the deploy is marked, once, with what it
    added, removed and changed (`ticked_before`: the store was reconciled with a set before)."""
    from ..store.deploys import LAST_DECLARED, Deploys  # only a deploy's tick: a Worker's cold start skips it

    by_name = tick.declared.by_name
    stored, [last] = await tick.store.named_beside(tick.declared.names, tick.now, [(LAST_DECLARED, ())])
    before = Deploys.declared_in(last)
    marker = Deploys.marker(tick.now, fingerprint, version_of(tick.settings.get(VERSION)),
                            before, tick.declared.described, ticked_before)
    new, changed, again, missed, failed = [], [], [], [], False
    for name, schedule in by_name.items():
        state, timing = stored.get(name), schedule.timing
        try:
            if state is None:
                new.append(_seed(schedule, timing.first_due_from(tick.now, schedule.starts)))
            elif state.form != schedule.form or (state.removed_at is not None and timing.forgets_absence):
                was = timing_part(state.form) if state.removed_at is None else None
                rebased = timing.rebased(state.due_at, tick.now, was)
                if schedule.starts is not None and rebased < schedule.starts or \
                        _start_withdrawn(schedule, state, tick.now, before):  # no call before its start
                    rebased = timing.first_due_from(tick.now, schedule.starts)
                changed.append((state, _seed(schedule, rebased)))
                if was is None and state.form == schedule.form:
                    missed += missed_while_gone(tick.now, timing, state)
            elif _before_its_start(schedule, state, tick.now) or _start_withdrawn(schedule, state, tick.now, before):
                changed.append((state, _seed(schedule, timing.first_due_from(tick.now, schedule.starts))))
            elif state.removed_at is not None:
                again.append(name)
        except Exception:
            log.exception("%s: its timing failed; it is left out of this tick", name,
                          extra={"event": "timing_failed", "schedule": name})
            failed = True
    # Sealed only when every schedule was dealt with: the next tick tries the rest again.
    await tick.store.reconcile(new, changed, again, None if failed else fingerprint, tick.now, missed, [marker],
                               limits_changed(by_name.values(), stored))


# The Worker's version, where its version-metadata binding is bound ([tool.tickwork]
# version_metadata): the adapter gives it the tick among the settings, as {"id", "tag", "timestamp"}.
VERSION = "tickwork:version"


def version_of(found: Any) -> Version | None:
    from ..store.deploys import Version

    if not isinstance(found, dict) or not found.get("id"):
        return None
    return Version(str(found["id"]), found.get("tag") or None, found.get("timestamp") or None)

def missed_while_gone(now: int, timing: Timing, state: State) -> list[Undeclared]:
    """A calendar declared again owes nothing from while it was gone: the occurrences it
    missed, from its kept due time to this tick, as the one skip that records them (none
    where there are none)."""
    if state.due_at > now:
        return []
    found = timing.covered(state.due_at, now, COUNTED)
    if found is None:
        return []
    many = found.count > 1
    run = digest(f"undeclared {state.name} {state.due_at}")
    return [Undeclared(run=run, name=state.name, due=state.due_at, at=found.last,
                       count=found.count if many else None, first=found.first if many else None,
                       last=found.last if many else None, more=int(not found.exact) if many else None)]


def limits_changed(schedules: Iterable[Schedule], stored: dict[str, State]) -> list[list[object]]:
    """[name, key, limit] of each declared schedule whose row does not keep the `concurrency:` it
    declares (a new row keeps none): a limit added, changed or dropped."""
    changed: list[list[object]] = []
    for schedule in schedules:
        state = stored.get(schedule.name)
        kept = (None, None) if state is None else (state.concurrency_key, state.concurrency_limit)
        wanted = schedule.concurrency or (None, None)
        if kept != tuple(wanted):
            changed.append([schedule.name, *wanted])
    return changed


def _before_its_start(schedule: Schedule, state: State, now: int) -> bool:
    """A start declared on a schedule already kept, still to come, with its row due before it:
    the row moves to the start (no call before it is made), as a changed form would."""
    starts = schedule.starts
    return starts is not None and starts > now and state.removed_at is None and state.due_at < starts


def _start_withdrawn(schedule: Schedule, state: State, now: int, before: dict[str, Any] | None) -> bool:
    """A row waiting for the start the last declared set gave it (its deploy marker keeps it: the
    row's due time came from the declaration), a start still to come, which this one removes or
    moves earlier: the row is released to its first due time from the new start, or from now."""
    starts = (before or {}).get(schedule.name, {}).get("starts")
    if not isinstance(starts, int) or starts <= now or state.removed_at is not None or state.due_at < starts:
        return False
    return schedule.starts is None or schedule.starts < starts


def _seed(schedule: Schedule, due: int) -> Seed:
    return Seed(schedule.name, schedule.timing.every_ms, schedule.form, due, schedule.jitter)
