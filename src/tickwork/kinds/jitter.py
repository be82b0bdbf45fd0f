"""`jitter: 5m`: each due time of a schedule runs an offset in [0, 5m) after it, the offset drawn
from (the schedule, the nominal due time) by model.due_jitter, so every racing tick agrees.

`every:` schedules and calendars take it. A pulse does not: its shares already spread a cycle's
calls, and the share a call is for is the one its tick falls in. A one-off moment does not: it is
the moment asked for. The jitter must be shorter than the shortest time between two due times,
so that a due time runs before the next one comes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Invalid
from ..times import SECOND, duration_ms
from ..times import iso as _iso

if TYPE_CHECKING:
    from . import Timing

CODE = "schedule.jitter_invalid"
TAKEN_BY = ("schedule", "calendar")  # the manifest's kinds that take a jitter
WALKED = 200  # a calendar's due times walked for its shortest gap: a year of weekly ones


def jitter_ms(text: str, said: str) -> int:
    """`jitter: 5m` in ms: whole seconds, at least one (offsets are drawn in seconds)."""
    ms = duration_ms(text.strip())
    if ms is None or ms < SECOND or ms % SECOND:
        raise Invalid(CODE, f"{said} of {text!r} is not a duration of whole seconds",
                      "write e.g. `jitter: 5m` (s, m, h or d)")
    return ms


def jitter_within(timing: Timing, jitter: int, said: str, now: int) -> int:
    """The jitter, once it is shorter than the shortest time between two due times of `timing`
    (an `every:`'s interval, a calendar's closest occurrences from `now` on)."""
    gap, where = _shortest_gap(timing, now)
    if gap is not None and jitter >= gap:
        raise Invalid(CODE, f"{said} of {jitter // SECOND}s is not shorter than the {gap // SECOND}s between "
                      f"two due times{where}: a due time would run after the next one came",
                      "make the jitter shorter than the time between due times")
    return jitter


def _shortest_gap(timing: Timing, now: int) -> tuple[int | None, str]:
    every = timing.every_ms
    if every:
        return every, ""
    moments = [call.at for call in timing.occurrences(now, now, now + 400 * 86_400_000, WALKED)
               if call.at is not None]
    gaps = [(b - a, a) for a, b in zip(moments, moments[1:], strict=False)]
    if not gaps:
        return None, ""
    gap, at = min(gaps)
    return gap, f" (from {_iso(at)})"


def jittered_entry(entry: dict[str, object], jitter: object, now: int) -> dict[str, object]:
    """A hand-over's entry with `jitter=` (a duration, `"5m"`, or ms) where given: an entry
    without it, and so its id, is as before."""
    if jitter is None:
        return entry
    from .forms import timing_of

    said = "`jitter`"
    if entry.get("kind") not in TAKEN_BY:
        raise Invalid(CODE, f"{said} is taken by `every` and `cron` items only", "leave `jitter` out")
    ms = jitter if isinstance(jitter, int) and not isinstance(jitter, bool) else None
    if ms is None:
        if not isinstance(jitter, str):
            raise Invalid(CODE, f"{said} of {jitter!r} is neither ms nor a duration", 'write e.g. jitter="5m"')
        ms = jitter_ms(jitter, said)
    elif ms < SECOND or ms % SECOND:
        raise Invalid(CODE, f"{said} of {ms} ms is not whole seconds", 'write e.g. jitter="5m"')
    return entry | {"jitter_ms": jitter_within(timing_of(entry), ms, said, now)}
