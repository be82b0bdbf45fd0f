"""The overlap policy in words, as `why`, `history` and the console say it: the schedule's rule, a
due time waiting behind the run under way, a run that waited, and one that ran beside another
(`overlap: allow`), each found in the page of runs already read."""

from __future__ import annotations

import importlib
from typing import Any

from ..kinds import waits_while_held

from .words import when

RULES = {
    "skip": "a due time the run before still holds is skipped, recorded `running` (`overlap: skip`)",
    "buffer": "a due time the run before still holds waits, at most one, and runs as soon as that run ends "
              "(`overlap: buffer`)",
    "allow": "a due time the run before still holds runs beside it, side by side, each due time once "
             "(`overlap: allow`)",
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


def beside_now_words(view: Any) -> str | None:
    """What the next due time does beside the run under way, for a schedule with `overlap: allow`."""
    lease = view.lease
    if lease is None or lease.lapsed or view.paused or view.next_due is None:
        return None
    if dict(view.settings).get("overlap") != "allow":
        return None
    return (f"the call due {when(view.due_at)} runs beside the run under way ({lease.run}), at its tick: "
            "each due time once, side by side (`overlap: allow`)")


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


def ran_beside(runs: list[dict]) -> dict[str, int]:
    """Of a page of runs: each that started while another run of the page, started before it, was
    still going (`overlap: allow`; under any other rule no two runs of a schedule overlap): its id,
    and the due time of the run it ran beside, the latest started."""
    started = sorted(((int(r["started_at"]), r) for r in runs if r.get("started_at") is not None and
                      r.get("due_at") is not None), key=lambda pair: pair[0])  # a backfill starts a few at once
    beside = {}
    for k, (start, run) in enumerate(started):
        going = [before for begun, before in started[:k] if begun < start and
                 (before.get("ended_at") is None or int(before["ended_at"]) > start)]
        if going:
            beside[run["id"]] = int(going[-1]["due_at"])
    return beside


def beside_words(due: int) -> str:
    return f"ran beside {when(due)}'s run"


def behind_words(due: int) -> str:
    return f"buffered behind {when(due)}'s run"
