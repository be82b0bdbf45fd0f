"""The overlap policy in words, as `why`, `history` and the console say it: the schedule's rule, a
due time waiting behind the run under way, and a run that waited."""

from __future__ import annotations

import importlib
from typing import Any

from ..kinds import waits_while_held

from .words import when

RULES = {
    "skip": "a due time the run before still holds is skipped, recorded `running` (`overlap: skip`)",
    "buffer": "a due time the run before still holds waits, at most one, and runs as soon as that run ends "
              "(`overlap: buffer`)",
}


def rule_words(settings: dict) -> str:
    """The schedule's overlap rule where it sets one; '' where it keeps its kind's own."""
    return RULES.get(str(settings.get("overlap")), "")


def buffers(kind: str, settings: dict) -> bool:
    """Whether a due time its run still holds waits for its end, by the rule the tick reads
    (kinds.rules.waits_while_held), the kind's own from its Timing."""
    from ..kinds.forms import KINDS

    found = next((k for k in KINDS.values() if k.prefix == kind), None)
    if found is None:
        return False
    timing = getattr(importlib.import_module(found.home, "tickwork.kinds"), found.timing_class)
    return waits_while_held(settings.get("overlap"), timing.skips_while_running)


def waiting_words(view: Any, now: int) -> str | None:
    """What a due time waiting behind the run under way does, where one is (a ScheduleView)."""
    lease = view.lease
    if lease is None or lease.lapsed or view.paused or view.next_due is None or view.due_at > now:
        return None
    if not buffers(view.kind, dict(view.settings)):
        return None
    return (f"the call due {when(view.due_at)} is buffered behind the run under way ({lease.run}): "
            f"it runs at the first tick after that run ends")


def buffered_behind(runs: list[dict]) -> dict[str, int]:
    """Of a page of runs, newest first: each run made late because the one before it was still going
    when it came due (its id, and the due time of the run it waited behind)."""
    behind = {}
    for run, before in zip(runs, runs[1:], strict=False):
        moments = [run.get("due_at"), run.get("started_at"), before.get("due_at"), before.get("started_at"),
                   before.get("ended_at")]
        found = [int(moment) for moment in moments if moment is not None]
        if len(found) < len(moments):
            continue
        due, started, before_due, before_started, before_ended = found
        if before_due < due and before_started <= due < before_ended <= started:  # not a retry of one due time
            behind[run["id"]] = before_due
    return behind


def behind_words(due: int) -> str:
    return f"buffered behind {when(due)}'s run"
