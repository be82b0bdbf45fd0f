"""Concurrency per key in words, as `why` and the console say it: the limit a schedule's row names,
and, for one due while its key's runs fill the limit, that it waits, owed, rather than being skipped."""

from collections.abc import Mapping
from typing import Any


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
