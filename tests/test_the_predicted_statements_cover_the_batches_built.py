"""The tick counts what its batches will cost before it builds them (tick.statements_for for the
claims and the ends of their runs, tick._ends_cost for a batch of ends): a count below the batch
built would let a tick pass D1's cap. Here the store's pure builders (claim_statements,
end_statements, OutboxStore.emitting) are held to those counts over many mixes of claims and ends
drawn at random, across the chunks a statement takes."""
import json
import random

import pytest

from tickwork import tick as ticking
from tickwork.model import Code
from tickwork.store.claims import Claim, claim_statements
from tickwork.store.ends import End, end_statements
from tickwork.store.outbox import Emitted, OutboxStore
from tickwork.store.sql import ROWS_PER_STATEMENT
from tickwork.times import MINUTE, NEVER, utc
from tickwork.timing import Call, Covered

NINE = utc("2026-03-02 09:00")
REASONS = [None, None, None, Code.SUPERSEDED, Code.PAUSED, Code.RUNNING, Code.EXPIRED, Code.ACTION_GONE]
SEEDS = range(40)


def drawn_claims(rng: random.Random) -> list[Claim]:
    count = rng.choice([0, 1, 3, ROWS_PER_STATEMENT - 1, ROWS_PER_STATEMENT, ROWS_PER_STATEMENT + 1,
                        rng.randrange(1, 3 * ROWS_PER_STATEMENT)])
    claims = []
    for k in range(count):
        due = NINE + rng.randrange(60) * MINUTE
        claims.append(Claim(
            f"s{k}", due, NEVER if rng.random() < 0.05 else due + MINUTE, f"z{k}",
            Call(at=due) if rng.random() < 0.5 else Call(),
            moment=f"m{k % 7}" if rng.random() < 0.2 else None,
            reason=rng.choice(REASONS), attempt=rng.choice([1, 1, 2, 3]),
            retrying=rng.choice([None, None, 2]), retries=rng.random() < 0.3,
            covers=Covered(3, due - 2 * MINUTE, due) if rng.random() < 0.2 else None))
    return claims


def alerting(chunk: str) -> list:
    """As alerts.skips_turning: three statements for a chunk of skips dropping a retry."""
    return [("MARK_SKIP_TURNS", (chunk,)), ("RECORD_SKIP_TURNS", (chunk,)), ("RECORD_SKIP_DELIVERIES", (chunk,))]


def ends_of(claims: list[Claim]) -> list[End]:
    """The ends of the claims' runs, every one failed, and retried where its claim retries."""
    return [End(c.name, c.run, "failed", "action_error", "error", "boom", NINE,
                retry=NINE + MINUTE if c.retries else None, attempt=c.attempt + 1 if c.retries else None)
            for c in claims if c.reason is None]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_ticks_count_of_its_claims_and_their_ends_never_falls_below_the_batches_built(seed):
    claims = drawn_claims(random.Random(seed))
    built = len(claim_statements(claims)) + len(end_statements(ends_of(claims)))
    assert ticking.statements_for(claims, flush=ticking.ENDS) >= built


@pytest.mark.parametrize("seed", SEEDS)
def test_with_alerts_the_count_covers_the_skips_announcing_a_schedule_failing(seed):
    claims = drawn_claims(random.Random(seed))
    built = len(claim_statements(claims, alerting)) + len(end_statements(ends_of(claims)))
    assert ticking.statements_for(claims, flush=ticking.ENDS, alerts=True) >= built


def drawn_batch(rng: random.Random) -> list[tuple[End, list[Emitted]]]:
    """Ends as the tick queues them, each with the rows of what its run emitted."""
    batch = []
    for k in range(rng.choice([1, 2, ROWS_PER_STATEMENT, ROWS_PER_STATEMENT + 1, rng.randrange(1, 500)])):
        writes = tuple(("UPDATE t SET x = ?1", (w,)) for w in range(rng.choice([0, 0, 0, 1, 3])))
        emitted = [Emitted(f"e{k}.{n}", "order.placed", json.dumps({"pad": "x" * rng.choice([10, 10, 20_000])}),
                           f"z{k}", "EVENTS", f"d{k}.{n}", "s", NINE + MINUTE, NINE, None)
                   for n in range(rng.choice([0, 0, 1, 4]))]
        end = End(f"s{k}", f"z{k}", "succeeded" if writes else "failed", None, None, None, NINE, writes=writes,
                  retry=NINE + MINUTE if rng.random() < 0.3 else None)
        batch.append((end, emitted))
    return batch


@pytest.mark.parametrize("seed", SEEDS)
def test_the_count_of_a_batch_of_ends_never_falls_below_its_ends_and_what_they_emitted(seed):
    batch = drawn_batch(random.Random(seed))
    ends = [end for end, _ in batch]
    emitted = [row for _, rows in batch for row in rows]
    assert ticking._ends_cost(batch) >= len(end_statements(ends)) + len(OutboxStore.emitting(emitted))


@pytest.mark.parametrize("seed", SEEDS)
def test_without_alerts_the_count_of_the_claims_is_the_claim_batchs_own_beside_a_batch_of_ends_a_chunk(seed):
    """statements_for counts, not builds (the tick asks it for every claim it drops): what it
    counts is the store's claim batch, and per chunk of leases the ends' statement and their
    retries, however the runs end."""
    claims = drawn_claims(random.Random(seed))
    leases = [c for c in claims if c.reason is None]
    ends = [End(c.name, c.run, "failed", None, None, None, NINE, retry=NINE if c.retries else None) for c in leases]
    assert ticking.statements_for(claims, flush=ticking.ENDS) == len(claim_statements(claims)) + len(
        end_statements(ends))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_count_of_a_batch_of_ends_is_what_its_builders_make_and_one_per_chunk_of_events_sent(seed):
    batch = drawn_batch(random.Random(seed))
    ends = [end for end, _ in batch]
    emitted = [row for _, rows in batch for row in rows]
    sent = len(OutboxStore.emitting(emitted)) // 2  # RECORD_SENT, once per chunk the sends came from
    assert ticking._ends_cost(batch) == len(end_statements(ends)) + len(OutboxStore.emitting(emitted)) + sent
