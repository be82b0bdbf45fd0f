"""A due row's Schedule: a declared one's by its name, a handed-over one's from its row."""

from __future__ import annotations

import json

from ..app import action_of, retry_of_entry, timing_of
from ..model import Schedule
from ..store.schedules import State
from .state import TickState


def schedule_of(tick: TickState, state: State) -> Schedule | None:
    """A declared schedule by its name; a handed-over one from its row (its action None
    where the app no longer has it), its timing read once a tick for each JSON."""
    if state.action is None:
        return tick.declared.by_name.get(state.name)
    key = state.timing
    assert key is not None  # a handed-over row keeps its timing
    if key not in tick.timings:
        entry = json.loads(key)
        tick.timings[key] = (timing_of(entry), retry_of_entry(entry), entry.get("limit_ms"), entry.get("times"),
                             entry.get("overlap"), entry.get("jitter_ms"), entry.get("workflow"))
    timing, retry, limit, times, overlap, jitter, workflow = tick.timings[key]
    action = action_of(state.action)  # None where the app no longer has it: the plan ends the row
    return Schedule(state.name, timing, action, "handed over", retry, limit,  # type: ignore[arg-type]
                    times=times, overlap=overlap, jitter=jitter, workflow=workflow)
