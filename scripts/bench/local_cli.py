"""`make bench`: the operator's command against the local D1 (issue 18). Each verb that reads,
run as an operator runs it (`python -m tickwork_cli VERB --local`, a process of its own, from
start to exit), answers from Miniflare's SQLite file in under a second, on a local D1 that
wrangler made and that holds 100,000 schedules handed over and 200,000 run records: each verb
reads a page, through an index, whatever the tables hold. One verb through
`wrangler d1 execute --local` (`--through-wrangler`) is timed beside them, for comparison.

Prints one JSON line per verb and exits non-zero naming each verb over its second.
"""

import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "scripts"), str(ROOT / "src")]

from tickwork.times import MINUTE, utc  # noqa: E402
from tickwork_cli.local_d1 import database_file  # noqa: E402
from tickwork_cli.wrangler_d1 import QUIET  # noqa: E402

GOAL_SECONDS = 1.0
TRIES = 3  # each verb's median of these is held to the goal
HANDED = 100_000
RUNS = 200_000
T0 = utc("2026-03-01 00:00")
NOW = T0 + 30 * 24 * 60 * MINUTE
EXAMPLE = {"binding": "DB", "database_id": "00000000-0000-0000-0000-000000000000"}
MIDDLE = f"remind@{HANDED // 2:032x}"  # a schedule handed over, halfway through the names

VERBS = [
    ("status",), ("schedules",), ("schedules", "--state", "handed-over", "--limit", "50"),
    ("schedules", "--after", MIDDLE, "--input"),
    ("history",), ("history", "--outcome", "failed", "--since", "1d"), ("history", "--name", "chore_*"),
    ("history", "chore_census"), ("why", "chore_census"), ("why", MIDDLE),
    ("deliveries", "--all"),
]

FILL = f"""
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {HANDED})
INSERT INTO tickwork_schedules (name, action, timing, input, form, every_ms, due_at, first_tick, last_tick, label)
SELECT printf('remind@%032x', n), 'app.domains.planning:remind', '{{"kind": "schedule", "every_ms": 86400000}}',
       json_object('customer', n), 'every 86400000', 86400000, {NOW} + n * 1000, {T0}, {T0},
       'customer ' || n
FROM k;
INSERT INTO tickwork_schedules (name, every_ms, form, due_at, first_tick, last_tick)
VALUES ('chore_census', 900000, 'every 900000', {NOW + 15 * MINUTE}, {T0}, {NOW});
WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < {RUNS})
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, code)
SELECT printf('%032x', n), CASE WHEN n % 10 = 0 THEN 'chore_census' ELSE printf('remind@%032x', n % {HANDED} + 1) END,
       {T0} + n * 12000, {T0} + n * 12000, {T0} + n * 12000, {T0} + n * 12000 + 40,
       CASE WHEN n % 97 = 0 THEN 'failed' ELSE 'succeeded' END, CASE WHEN n % 97 = 0 THEN 'internal_fault' END
FROM k;
UPDATE tickwork_app SET last_tick = {NOW} WHERE id = 1;
"""


def local_d1(state: Path) -> Path:
    """A local D1 as wrangler makes it, migrated, then filled straight in its file (nothing runs it)."""
    env = {**os.environ, **QUIET, "CI": "1"}
    done = subprocess.run([str(ROOT / "node_modules" / ".bin" / "wrangler"), "d1", "migrations", "apply", "DB",
                           "--local", "--persist-to", str(state)], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        sys.exit(f"wrangler d1 migrations apply failed: {(done.stderr or done.stdout)[-500:]}")
    path = database_file(state, EXAMPLE)
    conn = sqlite3.connect(path)
    conn.executescript(FILL)
    conn.close()
    return path


def timed(state: Path, verb: tuple, *more: str) -> tuple[float, subprocess.CompletedProcess]:
    env = {**os.environ, **QUIET, "PYTHONPATH": f"{ROOT / 'scripts'}{os.pathsep}{ROOT / 'src'}"}
    command = [sys.executable, "-m", "tickwork_cli", *verb, "--local", "--persist-to", str(state),
               "--project", str(ROOT), "--now", str(NOW), "--json", *more]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    return time.perf_counter() - started, done


def main() -> int:
    missed = []
    with tempfile.TemporaryDirectory() as scratch:
        state = Path(scratch) / "state"
        path = local_d1(state)
        print(json.dumps({"bench": "local_d1", "handed_over": HANDED, "runs": RUNS,
                          "file_mb": round(path.stat().st_size / 1e6, 1)}), flush=True)
        for verb in VERBS:
            seconds = []
            for _ in range(TRIES):
                took, done = timed(state, verb)
                if done.returncode not in (0, 1) or not done.stdout:  # status exits 1 for stopped ticks
                    sys.exit(f"tickwork {' '.join(verb)} --local failed: {done.stderr.strip()}")
                seconds.append(took)
            median = statistics.median(seconds)
            print(json.dumps({"bench": "local_verb", "verb": " ".join(verb), "median_s": round(median, 3),
                              "max_s": round(max(seconds), 3), "goal_s": GOAL_SECONDS}), flush=True)
            if median > GOAL_SECONDS:
                missed.append(f"`tickwork {' '.join(verb)} --local` took {median:.2f} s (goal: {GOAL_SECONDS} s)")
        took, done = timed(state, ("status",), "--through-wrangler")
        print(json.dumps({"bench": "through_wrangler", "verb": "status", "seconds": round(took, 3),
                          "ok": bool(done.stdout)}), flush=True)
    for line in missed:
        print(f"MISSED: {line}", file=sys.stderr)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
