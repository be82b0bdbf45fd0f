"""`make bench`: the outbox (issue 9), on the SQLite store with D1's semantics and a Queue
stand-in that records what it is sent (and, through scripts/bench/outbox_in_host.mjs, on the
host's Pyodide with Miniflare's D1 and Miniflare's real queues).

- A tick that emits 1, 100 and 1,000 events: one run emitting N, and N runs emitting one each.
  Its statements, round trips, rows written (and, on D1, rows read), time (median of a few
  ticks: the schedules are due every minute), the batches sent and what the deliveries came to.
- The sweep, with 1,000, 10,000 and 100,000 delivered (`succeeded`) deliveries in the store,
  measured in interleaved rounds: the sweep when nothing is left to send, the sweep sending
  100 due deliveries, and a nothing-due tick (which sweeps only when MARK_TICK says something
  is due); each with its ratio to 1,000 delivered. On CPython, the query plans of SWEEP and
  MARK_TICK.
- On the host only: the time from `emit` in a run to the consumer's call, the message going
  through Miniflare's queue to the queue handler (`run_queue`), median over a few.

Prints one JSON line per measurement and exits non-zero, naming the goals missed.
"""

import asyncio
import gc
import json
import statistics
import sys
import time
from pathlib import Path

if sys.platform != "emscripten":  # on the host, tickwork comes from the Worker's bundle
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from bench_common import Counters, migrated_sqlite, report  # noqa: E402
from tickwork import Schedule, event  # noqa: E402
from tickwork.adapters.workers import TICK_STATEMENTS  # noqa: E402  (a Worker's cap, 900)
from tickwork.database import Database  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.outbox import BATCH_BYTES, BATCH_MESSAGES, SEND_WINDOW, Outbox  # noqa: E402
from tickwork.store.outbox import SWEEP  # noqa: E402
from tickwork.store.app_row import MARK_TICK  # noqa: E402
from tickwork.tick import tick  # noqa: E402
from tickwork.times import DAY, HOUR, MINUTE, SECOND, utc  # noqa: E402

T0 = utc("2026-03-03 12:00")
LEASE = 15 * MINUTE  # how long past its tick a lease may last, as MARK_TICK is told
QUEUE = "OUTBOX"  # the producer binding the benchmark's events go out through
EMITS = (1, 100, 1000)
DELIVERED = (1_000, 10_000, 100_000)
TO_SEND = 100  # due deliveries the sending sweep finds among the delivered ones
EMIT_ROUNDS, HOST_EMIT_ROUNDS = 5, 3
SWEEP_ROUNDS, HOST_SWEEP_ROUNDS = 301, 41

GOALS = {
    "sweep_time_ratio": 1.3,  # the sweep with nothing to send at 100,000 delivered over 1,000
    "nothing_due_statements": 2,
    "nothing_due_round_trips": 1,
    "sweep_idle_statements": 1,  # the claim alone, nothing to record
    "sweep_sending_statements": 2,  # the claim, and what the sends came to (tick.SWEEP)
}

sink = event("bench_sink", queue=QUEUE)


class WallClock:
    """The outbox's clock: the benchmark's tick time, moved by hand."""

    def __init__(self, now: int = T0):
        self.now = now

    def __call__(self) -> int:
        return self.now


class Recorder:
    """A producer binding as the outbox sees it, recording each batch sent."""

    def __init__(self):
        self.batches: list[list[dict]] = []

    async def send_batch(self, bodies):
        self.batches.append(list(bodies))


class Sent:
    """Wraps a binding to count the batches and messages a stretch sent, and the largest."""

    def __init__(self, binding):
        self.binding = binding
        self.reset()

    def reset(self):
        self.batches = self.messages = self.largest_count = self.largest_bytes = 0

    async def send_batch(self, bodies):
        bodies = list(bodies)
        size = sum(len(json.dumps(body).encode()) for body in bodies)
        self.batches += 1
        self.messages += len(bodies)
        self.largest_count = max(self.largest_count, len(bodies))
        self.largest_bytes = max(self.largest_bytes, size)
        await self.binding.send_batch(bodies)


def emitting(count: int, first: int = 0):
    async def emit():
        for k in range(count):
            await sink.emit({"order": first + k})

    return emit


def emitters(count: int, shape: str) -> list[Schedule]:
    """One run emitting `count`, or `count` runs emitting one each; due every minute."""
    if shape == "one_run":
        return [Schedule(f"emit_{count}", Every(MINUTE), emitting(count))]
    return [Schedule(f"emit_one_{k:04}", Every(MINUTE), emitting(1, k)) for k in range(count)]


STATES = "SELECT state, COUNT(*) AS n FROM tickwork_deliveries GROUP BY state"


async def emit_ticks(db: Database, binding, store: str, count: int, shape: str, rounds: int) -> dict:
    """Ticks, a minute apart, at which the emitters run (the first tick only sees them)."""
    schedules = emitters(count, shape)
    clock = WallClock()
    sent = Sent(binding)
    outbox = Outbox(db, {QUEUE: sent}, frozenset(), clock)
    await tick(db, schedules, clock.now, started_at=clock.now, max_statements=TICK_STATEMENTS, outbox=outbox)
    samples = []
    for _ in range(rounds):
        clock.now += MINUTE
        sent.reset()
        gc.collect()
        counters = Counters(db)
        started = time.perf_counter()
        report = await tick(db, schedules, clock.now, started_at=clock.now, max_statements=TICK_STATEMENTS,
                            outbox=outbox)
        ms = (time.perf_counter() - started) * 1000
        samples.append({**counters.taken(), "ms": ms, "ran": sum(r.outcome == "succeeded" for r in report.runs),
                        "batches": sent.batches, "messages": sent.messages,
                        "largest_batch": sent.largest_count, "largest_batch_bytes": sent.largest_bytes})
    states = {row["state"]: int(row["n"]) for row in await db.all(STATES)}
    line = {"bench": "emit_tick", "store": store, "events": count, "shape": shape,
            "runs": len(schedules), "ticks": rounds,
            "ms": round(statistics.median(s["ms"] for s in samples), 2)}
    for key in ("statements", "round_trips", "rows_written", "rows_read", "batches", "messages",
                "largest_batch", "largest_batch_bytes"):
        if key in samples[0]:
            line[key] = max(s[key] for s in samples)
    line["fewest_messages"] = min(s["messages"] for s in samples)
    line["fewest_ran"] = min(s["ran"] for s in samples)
    line["deliveries"] = states
    return line


# ?1..?2: the numbers of the fixture's events; ?3 the time they were emitted at (D1 binds a
# number as a REAL: cast back); ?4 the state of their deliveries; ?5 the ids' prefix.
EVENTS = """
WITH RECURSIVE k(n) AS (SELECT CAST(?1 AS INTEGER) UNION ALL SELECT n + 1 FROM k WHERE n < ?2)
INSERT INTO tickwork_events (id, name, body, run, emitted_at)
SELECT ?5 || printf('e%030x', n), 'bench_sink', '{"order":' || n || '}', NULL, CAST(?3 AS INTEGER) + n FROM k
"""
DELIVERIES = f"""
WITH RECURSIVE k(n) AS (SELECT CAST(?1 AS INTEGER) UNION ALL SELECT n + 1 FROM k WHERE n < ?2)
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, updated_at)
SELECT ?5 || printf('d%030x', n), ?5 || printf('e%030x', n), '{QUEUE}', ?4, 1, CAST(?3 AS INTEGER) + n FROM k
"""
# The sending sweep's deliveries (ids 'p...'), due again before each of its rounds.
DUE_AGAIN = """
UPDATE tickwork_deliveries
SET state = 'pending', next_attempt_at = CAST(?1 AS INTEGER), lease_run = NULL, lease_until = NULL
WHERE id >= 'p' AND id < 'q'
"""
COUNT = "SELECT state, COUNT(*) AS n FROM tickwork_deliveries GROUP BY state ORDER BY state"


async def populate(db: Database, delivered: int, chunk: int) -> None:
    """`delivered` delivered events, emitted an hour ago (housekeeping keeps them a day), and
    TO_SEND more (delivered too, for now)."""
    emitted = T0 - HOUR
    for first in range(0, delivered, chunk):
        last = min(first + chunk, delivered) - 1
        for sql in (EVENTS, DELIVERIES):
            await db.all(sql, (first, last, emitted, "succeeded", "s"))
    for sql in (EVENTS, DELIVERIES):
        await db.all(sql, (0, TO_SEND - 1, emitted, "succeeded", "p"))


def quiet() -> list[Schedule]:
    """The app's declared schedules: none due within the benchmark's ticks."""
    async def nothing():
        pass

    return [Schedule(f"daily_{k}", Every(DAY * (k + 1)), nothing) for k in range(3)]


async def timed(db: Database, work) -> dict:
    counters = Counters(db)
    started = time.perf_counter()
    found = await work()
    return {"ms": (time.perf_counter() - started) * 1000, **counters.taken(), "found": found}


async def sweeps(dbs: dict[int, Database], bindings: dict[int, object], store: str, rounds: int) -> list[dict]:
    """Each round: on every N in turn, a nothing-due tick, the sweep with nothing left to send,
    and the sweep sending TO_SEND due deliveries, so the machine's noise falls on all alike."""
    clock = WallClock()
    schedules = quiet()
    outboxes, sent = {}, {}
    for n, db in dbs.items():
        sent[n] = Sent(bindings[n])
        outboxes[n] = Outbox(db, {QUEUE: sent[n]}, frozenset(), clock)
        await tick(db, schedules, clock.now, started_at=clock.now, outbox=outboxes[n])  # reconciles
    samples = {(kind, n): [] for kind in ("nothing_due_tick", "sweep_idle", "sweep_sending") for n in dbs}

    def ticking(db, outbox):
        async def work():
            report = await tick(db, schedules, clock.now, started_at=clock.now, max_statements=TICK_STATEMENTS,
                                outbox=outbox)
            return len(report.runs)
        return work

    def sweeping(outbox):
        return lambda: outbox.sweep(clock.now, "bench-sweeper", clock.now + SEND_WINDOW)  # a tick's Budget.until(0)

    for round_ in range(rounds + 3):  # the first three warm up
        clock.now += 10 * SECOND  # as the ticks at the marks of a minute: all within the hour
        for n, db in dbs.items():
            gc.collect()
            taken = [("nothing_due_tick", await timed(db, ticking(db, outboxes[n]))),
                     ("sweep_idle", await timed(db, sweeping(outboxes[n])))]
            await db.all(DUE_AGAIN, (clock.now - MINUTE,))
            sent[n].reset()
            sending = await timed(db, sweeping(outboxes[n]))
            taken.append(("sweep_sending", {**sending, "batches": sent[n].batches, "messages": sent[n].messages}))
            if round_ >= 3:
                for kind, sample in taken:
                    samples[(kind, n)].append(sample)
    base = min(dbs)
    results = []
    for kind in ("sweep_idle", "sweep_sending", "nothing_due_tick"):
        ms = {n: statistics.median(s["ms"] for s in samples[(kind, n)]) for n in dbs}
        for n in dbs:
            taken = samples[(kind, n)]
            line = {"bench": kind, "store": store, "delivered": n, "rounds": len(taken),
                    "ms": round(ms[n], 3), "ratio_to_1000": round(ms[n] / ms[base], 2)}
            for key in ("statements", "round_trips", "rows_written", "rows_read", "batches", "messages"):
                if key in taken[0]:
                    line[key] = max(s[key] for s in taken)
            if kind == "sweep_sending":
                line["fewest_sent"] = min(s["found"] for s in taken)
            else:
                line["found"] = max(s["found"] for s in taken)  # deliveries swept, or runs
            results.append(line)
    for n, db in dbs.items():
        states = {row["state"]: int(row["n"]) for row in await db.all(COUNT)}
        results.append({"bench": "sweep_fixture", "store": store, "delivered": n, "deliveries": states})
    return results


async def plans(db: Database, store: str) -> dict:
    """How SQLite runs the sweep's claim and MARK_TICK's look at the outbox."""
    found = {}
    statements = (("SWEEP", SWEEP, (T0, "x", T0, 100)), ("MARK_TICK", MARK_TICK, (T0, LEASE, LEASE, T0, T0)))
    for name, sql, params in statements:
        rows = await db.all("EXPLAIN QUERY PLAN " + sql, params)
        found[name] = [row["detail"] for row in rows]
    return {"bench": "query_plans", "store": store, **found}


def full_scans(plan: list[str]) -> list[str]:
    """Steps that read tickwork_deliveries whole: a SCAN of it with no index."""
    return [step for step in plan if step.startswith("SCAN tickwork_deliveries") and "INDEX" not in step]


def missed(results: list[dict]) -> list[str]:
    """The goals these figures miss, each saying by how much."""
    found = []
    for r in (r for r in results if r["bench"] == "emit_tick"):
        what = f"{r['store']}: {r['events']:,} events ({r['shape'].replace('_', ' ')})"
        if r["fewest_ran"] != r["runs"]:
            found.append(f"{what}: of {r['runs']} runs due, {r['fewest_ran']} succeeded in a tick")
        if r["fewest_messages"] != r["events"]:
            found.append(f"{what}: a tick sent {r['fewest_messages']} messages, not {r['events']}")
        if set(r["deliveries"]) != {"succeeded"}:
            found.append(f"{what}: deliveries left {r['deliveries']} (goal: all succeeded in their tick)")
        if r["largest_batch"] > BATCH_MESSAGES or r["largest_batch_bytes"] > BATCH_BYTES:
            found.append(f"{what}: a batch of {r['largest_batch']} messages, {r['largest_batch_bytes']} bytes "
                         f"(the batch send takes {BATCH_MESSAGES} and {BATCH_BYTES})")
        if r["statements"] > TICK_STATEMENTS:
            found.append(f"{what}: {r['statements']} statements, over the Worker's cap of {TICK_STATEMENTS}")
    by = {(r["bench"], r["delivered"]): r for r in results if "delivered" in r and "ms" in r}
    stores = {r["store"] for r in results}
    store = stores.pop() if len(stores) == 1 else "?"
    largest, smallest = max(DELIVERED), min(DELIVERED)
    for kind in ("sweep_idle", "sweep_sending", "nothing_due_tick"):
        high, low = by.get((kind, largest)), by.get((kind, smallest))
        if high is None:
            continue
        if "rows_read" in high and high["rows_read"] > low["rows_read"]:
            found.append(f"{store}: {kind} reads {high['rows_read']} rows at {largest:,} delivered, "
                         f"{low['rows_read']} at {smallest:,} (goal: not growing with them)")
        if kind == "sweep_idle" and high["ratio_to_1000"] > GOALS["sweep_time_ratio"]:
            found.append(f"{store}: the sweep with nothing to send costs {high['ratio_to_1000']}x at "
                         f"{largest:,} delivered what it costs at {smallest:,} "
                         f"(goal: at most {GOALS['sweep_time_ratio']}x)")
    for r in (r for r in by.values() if r["bench"] == "nothing_due_tick"):
        for key in ("statements", "round_trips"):
            if r[key] > GOALS[f"nothing_due_{key}"]:
                found.append(f"{store}: a nothing-due tick with {r['delivered']:,} delivered makes {r[key]} "
                             f"{key.replace('_', ' ')} (goal: at most {GOALS[f'nothing_due_{key}']})")
        if r["found"]:
            found.append(f"{store}: {r['found']} runs in ticks that should have had nothing due")
    for r in (r for r in by.values() if r["bench"] == "sweep_idle"):
        if r["statements"] > GOALS["sweep_idle_statements"] or r["found"]:
            found.append(f"{store}: the sweep with nothing to send at {r['delivered']:,} delivered made "
                         f"{r['statements']} statements and swept {r['found']}")
    for r in (r for r in by.values() if r["bench"] == "sweep_sending"):
        if r["fewest_sent"] != TO_SEND or r["messages"] != TO_SEND:
            found.append(f"{store}: the sweep at {r['delivered']:,} delivered sent {r['fewest_sent']} of {TO_SEND} due")
        if r["statements"] > GOALS["sweep_sending_statements"]:
            found.append(f"{store}: the sweep sending {TO_SEND} at {r['delivered']:,} delivered made "
                         f"{r['statements']} statements (goal: {GOALS['sweep_sending_statements']})")
    for r in (r for r in results if r["bench"] == "query_plans"):
        for name in ("SWEEP", "MARK_TICK"):
            if full_scans(r[name]):
                found.append(f"{r['store']}: {name} reads tickwork_deliveries whole: {full_scans(r[name])}")
    for r in (r for r in results if r["bench"] == "emit_to_consumer"):
        if r["consumed"] != r["emitted"]:
            found.append(f"{r['store']}: of {r['emitted']} events emitted, {r['consumed']} reached the consumer")
    return found


async def measure(fresh, sweep_dbs: dict[int, Database], bindings, store: str, chunk: int,
                  emit_rounds: int, sweep_rounds: int) -> list[dict]:
    """Every measurement: `fresh()` gives an empty migrated database for each emitting case;
    `sweep_dbs` (N -> an empty migrated database) take the delivered fixture; `bindings(key)`
    the producer binding a case sends through."""
    results = []
    for count in EMITS:
        for shape in ("one_run", "n_runs"):
            results.append(await emit_ticks(fresh(), bindings(("emit", count, shape)), store, count, shape,
                                            emit_rounds))
    for n, db in sweep_dbs.items():
        started = time.perf_counter()
        await populate(db, n, chunk)
        results.append({"bench": "fixture", "store": store, "delivered": n,
                        "seconds": round(time.perf_counter() - started, 1)})
    results += await sweeps(sweep_dbs, {n: bindings(("sweep", n)) for n in sweep_dbs}, store, sweep_rounds)
    return results


async def main() -> list[dict]:
    dbs = {n: migrated_sqlite() for n in DELIVERED}
    results = await measure(migrated_sqlite, dbs, lambda key: Recorder(), "cpython_sqlite", chunk=max(DELIVERED),
                            emit_rounds=EMIT_ROUNDS, sweep_rounds=SWEEP_ROUNDS)
    results.append(await plans(dbs[max(DELIVERED)], "cpython_sqlite"))
    return results


# --- On the host (scripts/bench/outbox_in_host.mjs) ------------------------------------------

LATENCY_QUEUE = "LATENCY"  # a producer binding whose queue the benchmark consumes itself
LATENCY_ROUNDS = 7
arrived = event("bench_latency", queue=LATENCY_QUEUE)
_host: dict = {}


def _worker_env(ctx, js_env):
    import entry  # the Worker's own entry: its Default wraps env as the runtime does

    return entry.Default(ctx, js_env).env


async def host_main(ctx, js_env, databases, bindings) -> str:
    """`databases`: the D1 bindings of the emitting cases (in order) and DB_<N> for each N
    delivered; `bindings`: the producer binding of the queue nothing consumes."""
    from tickwork.adapters.workers import D1Database, _Queue

    env = _worker_env(ctx, js_env)
    names = iter(list(databases))
    sink_queue = _Queue(getattr(env, str(bindings)))

    def fresh():
        return D1Database(getattr(env, next(names)))

    sweep_dbs = {n: D1Database(getattr(env, f"DB_{n}")) for n in DELIVERED}
    # D1 takes 100 KB a statement; a chunk's statement is a few hundred bytes whatever its rows.
    results = await measure(fresh, sweep_dbs, lambda key: sink_queue, "host_d1", chunk=20_000,
                            emit_rounds=HOST_EMIT_ROUNDS, sweep_rounds=HOST_SWEEP_ROUNDS)
    return json.dumps({"results": results, "missed": missed(results)})


async def host_latency(ctx, js_env, database: str, queue_name: str, batch_timeout: float) -> str:
    """Emit to consumer: a run emits one event; the outbox sends it through LATENCY, a real queue
    of Miniflare's; its consumer Worker hands the batch to the host, which calls `on_queue`; the
    consumer records when it was called. Median over LATENCY_ROUNDS ticks, a minute apart."""
    from tickwork.adapters.workers import D1Database, outbox
    from tickwork.app import App
    from tickwork.model import Consumer

    env = _worker_env(ctx, js_env)
    db = D1Database(getattr(env, database))
    seen: dict[int, float] = {}
    waiting: dict[int, asyncio.Future] = {}

    async def consume_it():
        from tickwork import call

        n = call.input["n"]
        seen[n] = time.time() * 1000
        if n in waiting and not waiting[n].done():
            waiting[n].set_result(None)

    app = App(database, (), producers={LATENCY_QUEUE: queue_name},
              consumers={queue_name: Consumer(queue_name, consume_it, max_retries=1)})
    _host["app"], _host["env"] = app, env
    emitted_at: dict[int, float] = {}
    round_ = {"n": 0}

    async def emit_one():
        n = round_["n"]
        emitted_at[n] = time.time() * 1000
        await arrived.emit({"n": n})

    schedules = [Schedule("emit_for_latency", Every(MINUTE), emit_one)]
    sender = outbox(app, env, db)
    now = T0
    await tick(db, schedules, now, outbox=sender)  # sees the schedule: due a minute on
    latencies = []
    for n in range(LATENCY_ROUNDS):
        round_["n"] = n
        waiting[n] = asyncio.get_running_loop().create_future()
        now += MINUTE
        await tick(db, schedules, now, outbox=sender)
        try:
            await asyncio.wait_for(waiting[n], timeout=30)
        except TimeoutError:
            break
        latencies.append(seen[n] - emitted_at[n])
    states = {row["state"]: int(row["n"]) for row in await db.all(COUNT)}
    result = {"bench": "emit_to_consumer", "store": "host_d1", "queue": "miniflare",
              "max_batch_timeout_s": batch_timeout, "emitted": LATENCY_ROUNDS, "consumed": len(latencies),
              "ms_median": round(statistics.median(latencies), 1) if latencies else None,
              "ms_min": round(min(latencies), 1) if latencies else None,
              "ms_max": round(max(latencies), 1) if latencies else None,
              "deliveries": states}
    return json.dumps({"results": [result], "missed": missed([result])})


async def on_queue(batch) -> None:
    """The Worker's `queue(batch)` for the latency queue: tickwork's own handler."""
    from tickwork.adapters.workers import run_queue
    from workers import python_from_rpc

    await run_queue(_host["app"], _host["env"], python_from_rpc(batch))


if __name__ == "__main__":
    results = asyncio.run(main())
    report("outbox", results, missed(results))
