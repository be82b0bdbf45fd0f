"""`make bench`: rows read by each console page and each reading verb of the operator's command,
as D1 bills them, at 10,000 and at 1,000,000 schedules handed over, run records and deliveries
(issue 23). Goal: what a page or verb reads follows what it shows, not what the tables hold: at the
large count within 1.3x of the figure at 10,000.

The store is Miniflare's local D1 (workerd's SQLite, whose `meta.rows_read` counts as D1 bills),
served by scripts/bench/console_d1.mjs, migrated, then filled straight in its file by one
recursive-CTE INSERT a table (a fixture, not the hand-over API). The console's statements are bound
as the Worker binds them; the command's are written with their values inlined, as
`wrangler d1 execute --remote` runs them (tickwork_cli.wrangler_d1.inline).

    .venv/bin/python scripts/bench/console.py [--sizes 10000,1000000]

Prints one JSON line per page or verb and size and exits non-zero naming the goals missed.
"""

import argparse
import asyncio
import json
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "src")]

from tickwork.console.console_store import CHARTED, GRID_LOOKS, OVERVIEW_GRID, RUNS_BY_HOUR, ConsoleStore  # noqa: E402
from tickwork.database import Database  # noqa: E402
from tickwork.store.delivery_filters import EARLIEST, DeliveryFilter, filtered_deliveries  # noqa: E402
from tickwork.store.run_filters import LATEST, RunFilter, filtered_runs  # noqa: E402
from tickwork.times import DAY, HOUR, MINUTE, NEVER, utc  # noqa: E402
from tickwork_cli import cli  # noqa: E402
from tickwork_cli.local_d1 import database_file  # noqa: E402
from tickwork_cli.wrangler_d1 import inline  # noqa: E402

GOAL_RATIO = 1.3
SIZES = (10_000, 1_000_000)
T0 = utc("2026-03-01 00:00")
NOW = T0 + 30 * DAY
DATABASE = {"binding": "DB", "database_id": "00000000-0000-0000-0000-000000000000"}  # host_bench.wranglerToml's


def fill(n: int) -> str:
    """n schedules handed over (one in 100 paused, one in 50 ended), 10 declared, n run records over
    the last day (one in 97 failed), n events with a delivery each (50 failed and 50 pending: the
    open ones an operator may act on, every one on the page), a few operator-log rows."""
    step = DAY // n
    return f"""
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {n})
INSERT INTO tickwork_schedules (name, action, timing, input, form, every_ms, due_at, first_tick, last_tick, label,
    paused, removed_at, ended)
SELECT printf('remind@%032x', n), 'app.domains.planning:remind', '{{"kind": "schedule", "every_ms": 86400000}}',
       json_object('customer', n), 'every 86400000', 86400000, {NOW} + n * 1000, {T0}, {T0}, 'customer ' || n,
       n % 100 = 0, CASE WHEN n % 50 = 1 THEN {NOW - HOUR} END, CASE WHEN n % 50 = 1 THEN 'cancelled' END
FROM k;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 10)
INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick)
SELECT 'chore_' || n, 900000, 'every 900000', {NOW + 15 * MINUTE}, {T0}, {NOW} FROM k;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {n})
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code)
SELECT 'z' || printf('%012x%019x', {NOW - DAY} + n * {step}, n),
       CASE WHEN n % 10 = 0 THEN 'chore_' || (n % 7 + 1) ELSE printf('remind@%032x', n % {n} + 1) END,
       {NOW - DAY} + n * {step}, {NOW - DAY} + n * {step}, {NOW - DAY} + n * {step}, {NOW - DAY} + n * {step} + 40,
       CASE WHEN n % 97 = 0 THEN 'failed' ELSE 'succeeded' END, CASE WHEN n % 97 = 0 THEN 'internal_fault' END
FROM k;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {n})
INSERT INTO tickwork_events (id, name, body, run, emitted_at)
SELECT printf('e%031x', n), 'reminder_sent', json_object('customer', n), NULL, {NOW - DAY} + n * {step} FROM k;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {n})
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, next_attempt_at, last_error, updated_at)
SELECT printf('d%031x', n), printf('e%031x', n), 'EVENTS',
       CASE WHEN n <= 50 THEN 'failed' WHEN n <= 100 THEN 'pending' ELSE 'succeeded' END, 1,
       CASE WHEN n BETWEEN 51 AND 100 THEN {NOW} END, CASE WHEN n <= 50 THEN 'the queue said no' END,
       {NOW - DAY} + n * {step}
FROM k;
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < 100)
INSERT INTO tickwork_operator_log (id, at, who, verb, schedule)
SELECT printf('log%029x', n), {NOW - DAY} + n * 60000, 'ada', 'pause', 'chore_1' FROM k;
UPDATE tickwork_app SET last_tick = {NOW}, prev_tick = {NOW - MINUTE} WHERE id = 1;
"""


class BenchD1(Database):
    """The local D1 through console_d1.mjs, counting what D1 counts. `inlined`: the command's
    statements, values written in, as wrangler runs them."""

    def __init__(self, process: subprocess.Popen, inlined: bool = False):
        self.process, self.inlined = process, inlined
        self.statements_run = self.round_trips = self.rows_written = self.rows_read = 0

    async def all(self, sql, params=()):
        [rows] = await self.batch([(sql, params)])
        return rows

    async def batch(self, statements):
        sent = [{"sql": inline(sql, params), "params": []} if self.inlined else {"sql": sql, "params": list(params)}
                for sql, params in statements]
        self.process.stdin.write(json.dumps(sent) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        if "error" in answer:
            raise RuntimeError(answer["error"])
        self.statements_run += len(statements)
        self.round_trips += 1
        self.rows_read += sum(r["rows_read"] for r in answer["results"])
        return [r["rows"] for r in answer["results"]]


def served(state_dir: Path) -> subprocess.Popen:
    process = subprocess.Popen(["node", str(ROOT / "scripts" / "bench" / "console_d1.mjs"), str(state_dir)],
                               cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    line = process.stdout.readline()
    if not line or not json.loads(line).get("ready"):
        sys.exit("console_d1.mjs did not start")
    return process


MIDDLE = "remind@" + f"{5001:032x}"
PAGES = {
    "overview": lambda c: c.overview(NOW - DAY),
    "overview's runs per hour over 7 d": lambda c: c.db.all(RUNS_BY_HOUR, (NOW - 7 * DAY, CHARTED, HOUR, NOW - DAY)),
    "overview's grid": lambda c: c.db.all(OVERVIEW_GRID, (NOW - DAY, GRID_LOOKS, 13, 24)),
    "schedules": lambda c: c.schedules(None, None, "live", None, 50),
    "schedules?after": lambda c: c.schedules(None, None, "live", MIDDLE, 50),
    "schedules?name=prefix": lambda c: c.schedules("name", "remind@00000000000000000000000000001*", "live", None, 50),
    "schedules?action": lambda c: c.schedules("action", "app.domains.*", "live", None, 50),
    "schedules?label": lambda c: c.schedules("label", "customer 77*", "all", None, 50),
    "schedules?input": lambda c: c.schedules("input", '"customer":7777', "all", None, 50),
    "schedules?state=paused": lambda c: c.schedules(None, None, "paused", None, 50),
    "schedules?state=ended": lambda c: c.schedules(None, None, "ended", None, 50),
    "schedules?name=*glob (none match)": lambda c: c.schedules("name", "*nobody*", "live", None, 50),
    "schedules?name=remind@*glob (none match)": lambda c: c.schedules("name", "remind@*nobody", "live", None, 50),
    "schedules?name=prefix past the last": lambda c: c.schedules("name", "remind@1*", "live", None, 50),
    "schedule": lambda c: c.schedule(MIDDLE, None, 50),
    "runs": lambda c: c.runs(None, NOW - DAY, None, None, 50),
    "runs?outcome=failed": lambda c: c.runs(None, NOW - DAY, "failed", None, 50),
    "runs?name=chore_*": lambda c: c.runs(None, 0, None, "chore_*", 50),
    "runs?error=nobody (a window)": lambda c: filtered_runs(c.db, RunFilter(NOW - DAY, NEVER, error="nobody"),
                                                             LATEST, 51),
    "deliveries": lambda c: filtered_deliveries(c.db, DeliveryFilter(False), EARLIEST, 201),
    "deliveries?all=1": lambda c: filtered_deliveries(c.db, DeliveryFilter(True), EARLIEST, 201),
    "deliveries?all=1&queue=NOWHERE (a window)": lambda c: filtered_deliveries(
        c.db, DeliveryFilter(True, queue="NOWHERE"), EARLIEST, 201),
    "log": lambda c: c.log(None, 50),
}
VERBS = [
    ("status",), ("schedules",), ("schedules", "--after", MIDDLE),
    ("schedules", "--name", "remind@0000000000000000000000000000*"),
    ("schedules", "--state", "paused"), ("schedules", "--state", "removed"), ("schedules", "--state", "running"),
    ("schedules", "--state", "declared"), ("schedules", "--kind", "calendar"),
    ("history",), ("history", "--outcome", "failed", "--since", "1d"), ("history", "--name", "chore_*"),
    ("history", "chore_1"), ("why", MIDDLE), ("deliveries",), ("deliveries", "--all"), ("backfills",),
]


async def measure(db: BenchD1, read) -> int:
    before = db.rows_read
    await read()
    return db.rows_read - before


async def measured(n: int, process: subprocess.Popen) -> dict:
    found = {}
    console = ConsoleStore(BenchD1(process))
    for page, read in PAGES.items():
        found[f"page {page}"] = await measure(console.db, lambda read=read: read(console))
    inlined = BenchD1(process, inlined=True)
    for verb in VERBS:
        args = cli.parser().parse_args([*verb, "--remote"])
        found["verb " + " ".join(verb)] = await measure(inlined, lambda args=args: cli._run(args, inlined, None, NOW))
    return found


def main() -> int:
    options = argparse.ArgumentParser()
    options.add_argument("--sizes", default=",".join(map(str, SIZES)))
    sizes = [int(n) for n in options.parse_args().sizes.split(",")]
    by_size = {}
    for n in sizes:
        with tempfile.TemporaryDirectory() as scratch:
            served(Path(scratch)).communicate("")  # migrated, then closed while the file is filled
            started = time.perf_counter()
            conn = sqlite3.connect(database_file(Path(scratch) / "state", DATABASE))
            conn.executescript(fill(n))
            conn.close()
            built = time.perf_counter() - started
            process = served(Path(scratch))
            try:
                by_size[n] = asyncio.run(measured(n, process))
            finally:
                process.communicate("")
        print(json.dumps({"bench": "console_fixture", "rows": n, "built_s": round(built, 1)}), flush=True)
    smallest, largest = min(sizes), max(sizes)
    missed = []
    for what, low in by_size[smallest].items():
        high = by_size[largest][what]
        ratio = high / max(low, 1)
        reads = {f"rows_read_at_{n}": by_size[n][what] for n in sizes}
        print(json.dumps({"bench": "console_rows_read", "what": what, **reads, "ratio": round(ratio, 2)}), flush=True)
        if ratio > GOAL_RATIO:
            missed.append(f"{what}: {high:,} rows read at {largest:,}, {low:,} at {smallest:,} "
                          f"({ratio:.1f}x; goal: at most {GOAL_RATIO}x)")
    for line in missed:
        print(f"MISSED: {line}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
