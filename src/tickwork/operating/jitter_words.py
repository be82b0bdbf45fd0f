"""A schedule's jitter in words, for `why`, `history` and the console: a due time is said as its
nominal moment with the moment it runs beside it (`due 09:00 (runs at 09:03:12, jitter 5m)`), and
a run as its due time and when it started."""

from __future__ import annotations

from ..model import due_jitter
from ..times import NEVER, written
from .words import read_form, when


def jitter_of_form(form: str | None) -> int | None:
    """The jitter (ms) a kept form ends with; None without one."""
    read = read_form(form) if form else None
    return None if read is None else read.jitter_ms


def runs_at(name: str, form: str | None, due: int) -> int | None:
    """When the due time `due` runs: delayed by the schedule's jitter; None without one."""
    jitter = jitter_of_form(form)
    if jitter is None or due >= NEVER:
        return None
    return due + due_jitter(name, due, jitter)


def jitter_note(name: str, form: str | None, due: int) -> str:
    """`, runs at 09:03:12 UTC (jitter 5m)` after a due time; "" without a jitter."""
    at = runs_at(name, form, due)
    if at is None:
        return ""
    return f", runs at {_clock(at)} (jitter {written(jitter_of_form(form) or 0)})"


def history_note(name: str, form: str | None) -> str:
    """What the history says once above its runs of a jittered schedule."""
    jitter = jitter_of_form(form)
    if jitter is None:
        return ""
    return (f"jitter {written(jitter)}: each due time runs at an offset under {written(jitter)} after it, the "
            f"same for every tick; DUE is the nominal time (call.at), STARTED when it ran")


def _clock(ms: int) -> str:
    """The time of day of `when`, without its date: `09:03:12 UTC`."""
    return when(ms).partition(" ")[2]
