"""Concurrency per key, before the claim: of the runs a tick means to make under one key, no more
than the key's limit are claimed (the first in due order), as no more could win. The rest stay
due, owed, neither claimed nor skipped: a backlog of 5,000 runs under a key of limit 4 costs each
tick 4 claims, not 5,000. What the runs under way leave of the limit is counted by the claim
itself (store.concurrency.TAKE_LEASES_LIMITED), in the batch that takes the leases."""

from __future__ import annotations

from typing import TypeVar

from ..store.claims import Claim

T = TypeVar("T")


def within_limits(claims: list[tuple[Claim, T]]) -> list[tuple[Claim, T]]:
    """`claims` (the plan's, oldest due first) less the runs past their key's limit; skips, and
    claims of rows naming no key, all kept."""
    if all(c.concurrency is None for c, _ in claims):
        return claims
    ordered = sorted(range(len(claims)), key=lambda k: (claims[k][0].due, claims[k][0].name))
    taken: dict[str, int] = {}
    dropped: set[int] = set()
    for k in ordered:
        limited = claims[k][0].concurrency
        if limited is None or claims[k][0].reason is not None:
            continue
        key, most = limited
        taken[key] = taken.get(key, 0) + 1
        if taken[key] > most:
            dropped.add(k)
    return [claim for k, claim in enumerate(claims) if k not in dropped]
