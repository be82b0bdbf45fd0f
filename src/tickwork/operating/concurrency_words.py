"""Concurrency per key in words, as `why`, `history` and the console say it: the limit a schedule's
row names; for one due while its key's runs fill the limit, that it waits, owed, rather than being
skipped; and, for a run made after waiting for its key, how long it waited."""

from collections.abc import Mapping, Sequence
from typing import Any

from ..times import MINUTE


def limit_words(state: Mapping[str, Any]) -> str | None:
    """`at most 4 runs at once of api:acme`, for a row naming a key; None otherwise."""
    key, limit = state.get("concurrency_key"), state.get("concurrency_limit")
    if key is None or limit is None:
        return None
    return f"at most {int(limit)} run{'s' if int(limit) != 1 else ''} at once of `{key}` (`concurrency`)"


def waiting_words(state: Mapping[str, Any], under_way: int) -> str | None:
    """`waiting: 4 of 4 runs of api:acme under way`, where the key's runs fill its limit; a run
    that waits is owed: a later tick makes it, in due order, and it is never skipped for waiting."""
    key, limit = state.get("concurrency_key"), state.get("concurrency_limit")
    if key is None or limit is None or under_way < int(limit):
        return None
    return (f"waiting: {under_way} of {int(limit)} runs of {key} under way; "
            "owed, a tick after one of them ends makes it")


def waited_ms(run: Mapping[str, Any], state: Mapping[str, Any] | None, gaps: Sequence[Mapping[str, Any]]) -> int | None:
    """How long a run of a schedule naming a key waited for its key, worked out from its record, as
    nothing more is written for it: from the first tick that could make it (its due time, delayed
    by its jitter; after ticks stopped, the first tick back, from `gaps`) to the tick that made it.
    None under a minute (no minute's tick passed it over), and for a skip, a retry (its pause made
    it late), a run by hand and one a backfill or remake made (late by design, and never
    counted against the key)."""
    from .jitter_words import runs_at  # only for a schedule naming a key

    if state is None or state.get("concurrency_key") is None or run.get("due_at") is None:
        return None
    if run.get("outcome") == "skipped" or run.get("by_hand") or run.get("backfill") or int(run.get("attempt") or 1) > 1:
        return None
    due, made = int(run["due_at"]), int(run["tick_at"])
    start = runs_at(str(run.get("schedule")), state.get("form"), due) or due
    for gap in gaps:  # ticks stopped meanwhile: the wait is counted from the first tick back
        if start < int(gap["to_tick"]) <= made:
            start = int(gap["to_tick"])
    return made - start if made - start >= MINUTE else None


def waited_words(run: Mapping[str, Any], state: Mapping[str, Any] | None,
                 gaps: Sequence[Mapping[str, Any]]) -> str | None:
    """`waited 40s for api:acme (4 running)`, for a run that waited for its key: a due run is left
    out only while the key's runs fill its limit."""
    waited = waited_ms(run, state, gaps)
    if waited is None or state is None:
        return None
    from .words import short

    return f"waited {short(waited)} for {state['concurrency_key']} ({int(state['concurrency_limit'])} running)"
