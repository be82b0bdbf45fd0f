"""A schedule's retry rule in words, for `why`, `history`, `schedules` and the console: the rule
whole as it is written, a pending retry's pause (`retry 3 of 8 after 30m (the ceiling)`), and a
failure not retried (`not retried: invalid_input is never retried (retry 3 after 1m except
invalid_input)`)."""

from __future__ import annotations

from typing import Any, Mapping

from ..model import Kind, Retry, jitter_of, seed_of
from ..times import written


def retry_of_settings(settings: Mapping[str, Any]) -> Retry | None:
    """The rule a schedule's settings keep (kinds.forms.retry_of_entry, the one reader); None
    where it has none or they cannot be read."""
    from ..kinds.forms import retry_of_entry

    try:
        return retry_of_entry(dict(settings))
    except (KeyError, TypeError, ValueError):
        return None


def rule_text(retry: Retry) -> str:
    """The rule as a `retry:` item writes it: `8 after 1m up to 30m jitter 30s except invalid_input`."""
    text = f"{retry.attempts} after {written(retry.pause)}"
    text += f" up to {written(retry.ceiling)}" if retry.ceiling is not None else ""
    text += f" jitter {written(retry.jitter)}" if retry.jitter else ""
    return text + (f" except {', '.join(retry.never)}" if retry.never else "")


def rule_words(retry: Retry, span: Any) -> str:
    """The rule in words, as a schedule's rule ends: `span` says a duration (words.span)."""
    more = retry.attempts
    said = (f"a failed run is tried again for its due time up to {more} time{'' if more == 1 else 's'} more, "
            f"{span(retry.pause)} after the first failure and each pause twice the one before")
    if retry.ceiling is not None:
        said += f", up to {span(retry.ceiling)}"
    if retry.jitter:
        said += f", each plus an offset under {span(retry.jitter)} drawn for the schedule, due time and attempt"
    if retry.never:
        said += f"; {_listed(retry.never)} {'is' if len(retry.never) == 1 else 'are'} never retried"
    return said + f" (`retry: {rule_text(retry)}`)"


def pending_words(name: str, attempt: int, due: int, retry: Retry | None) -> str:
    """A pending attempt's place among the retries and the pause before it: `retry 3 of 8 after
    30m (the ceiling)`, with its jitter where the rule has one; '' where the rule is unknown."""
    if retry is None or attempt < 2:
        return ""
    failed = attempt - 1
    grown = retry.grown(failed)
    text = f"retry {failed} of {retry.attempts} after {written(grown)}"
    if retry.ceiling is not None and grown == retry.ceiling and retry.pause * 2 ** (failed - 1) >= retry.ceiling:
        text += " (the ceiling)"
    offset = jitter_of(seed_of(name), due, failed, retry.jitter)
    return text + (f" and {written(offset)} of jitter" if offset else "")


def run_retry_words(run: Mapping[str, Any], retry: Retry | None) -> str:
    """A run's place among its due time's retries (pending_words), or why it was not retried."""
    if run.get("kind") == Kind.UNRETRIED:
        return unretried_words(run, retry)
    if run.get("outcome") == "skipped" or run.get("by_hand") or run.get("backfill") or run.get("due_at") is None:
        return ""
    return pending_words(run["schedule"], int(run.get("attempt") or 1), int(run["due_at"]), retry)


def unretried_words(run: Mapping[str, Any], retry: Retry | None) -> str:
    """Why a failed run with attempts left was not tried again; '' for every other run."""
    if run.get("kind") != Kind.UNRETRIED:
        return ""
    code = run.get("code")
    if retry is None:  # a page across schedules, which does not read each one's rule
        return f"not retried: {code} ended its due time's attempts"
    if code in retry.never:
        return f"not retried: {code} is never retried (retry {rule_text(retry)})"
    return f"not retried: the action raised {code} with retry=False"


def _listed(codes: tuple[str, ...]) -> str:
    return codes[0] if len(codes) == 1 else f"{', '.join(codes[:-1])} and {codes[-1]}"
