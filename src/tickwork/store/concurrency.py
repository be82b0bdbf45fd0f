"""Concurrency per key, at claim time: the lease statement for a chunk of claims whose rows name a
concurrency key takes, of each key, at most its limit less the key's runs under way, in due order,
in the same statement that takes them. D1 runs one batch at a time, and a batch is atomic, so of
two ticks racing for a key's last slot the second one's count sees the first one's run: neither
takes more than the limit leaves. A run left out is neither leased nor skipped: its row stays due,
owed, and a later tick claims it in due order. A run under way is one whose record is `running`
within its lease (the lease's own test, leases.LEASE_OPEN, and its time): a run whose ticker was
killed holds its slot only until its lease lapses."""

from ..database import Database
from .claims import ENDING_ONE_OFFS, TAKEABLE, _take_leases
from .leases import LEASE_OPEN


def _within(clock: str) -> tuple[str, str]:
    """The CTEs that bound a lease statement by the keys' limits, and the condition that does it.
    `waiting`: the chunk's keyed claims the statement could take, numbered in due order within
    their key; `going`: each such key's runs under way at `clock`, counted along the index by key
    and lease (migration 0029), one lookup a key; `allowed`: those whose number is within what
    their limit leaves. A claim whose row names no key is taken as without this bound."""
    under_way = LEASE_OPEN.replace("s.lease_run", "o.lease_run")
    ctes = f""",
waiting AS (
    SELECT j.name, s.concurrency_key AS key, s.concurrency_limit AS most,
           ROW_NUMBER() OVER (PARTITION BY s.concurrency_key ORDER BY j.due, j.name) AS place
    FROM j JOIN tickwork_schedules AS s ON s.name = j.name
    WHERE s.concurrency_key IS NOT NULL AND {TAKEABLE}),
going AS (
    SELECT w.key, (SELECT COUNT(*) FROM tickwork_schedules AS o INDEXED BY tickwork_schedules_by_concurrency
                   WHERE o.concurrency_key = w.key AND o.lease_until > {clock} AND {under_way}) AS running
    FROM (SELECT DISTINCT key FROM waiting) AS w),
allowed AS MATERIALIZED (
    SELECT w.name FROM waiting AS w JOIN going AS g ON g.key = w.key WHERE w.place <= w.most - g.running)"""
    bound = """
  AND (s.concurrency_key IS NULL OR s.name IN (SELECT name FROM allowed))"""
    return ctes, bound


# ?1 the claims, ?2 the leases' end, ?3 when they begin (the invocation's clock, as every test of
# a lease reads it). Only for a chunk with a keyed claim: every other chunk's lease is
# claims.TAKE_LEASES, as before.
TAKE_LEASES_LIMITED = _take_leases(within=_within("?3"))
# As claims.TAKE_LEASES_ENDING, for a chunk with a keyed one-off moment: ?3 the tick, ?4 the clock.
TAKE_LEASES_LIMITED_ENDING = _take_leases(ENDING_ONE_OFFS, _within("?4"))


# `why` of a schedule naming a key: the key's runs under way at ?2 (the operator's clock), along the
# index the claim counts by; only read for a row that names one.
UNDER_WAY = f"""
SELECT COUNT(*) AS under_way FROM tickwork_schedules AS o INDEXED BY tickwork_schedules_by_concurrency
WHERE o.concurrency_key = ?1 AND o.lease_until > ?2 AND {LEASE_OPEN.replace("s.lease_run", "o.lease_run")}
"""

# The same for the console's page of one schedule, by its name, in the page's batch: a row naming
# no key matches nothing (= NULL), so it costs that page one lookup of the row and nothing more.
UNDER_WAY_OF = UNDER_WAY.replace("o.concurrency_key = ?1",
                                 "o.concurrency_key = (SELECT concurrency_key FROM tickwork_schedules WHERE name = ?1)")


async def under_way(db: Database, key: str, now: int) -> int:
    """How many runs of the schedules naming `key` are under way at `now`."""
    rows = await db.all(UNDER_WAY, (key, now))
    return int(rows[0]["under_way"]) if rows else 0
