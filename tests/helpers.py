"""Small pieces the tests share: recording actions, a frozen monotonic clock, the Worker
Cloudflare's template makes, and starting, reading and stopping a process."""

import asyncio
import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

from tickwork import Schedule, call, clock
from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.calendars import Calendar, CronCalendar
from tickwork.grid import Every
from tickwork.pulses import Pulse
from tickwork.schedule_store import Claim, ScheduleStore
from tickwork.tick import tick
from tickwork.times import MINUTE
from tickwork.timing import Call

ROOT = Path(__file__).resolve().parent.parent
MIGRATIONS = ROOT / "migrations"


def open_store(path=":memory:") -> SQLiteDatabase:
    db = SQLiteDatabase(path)
    db.apply_migrations(MIGRATIONS)
    return db


def migrated_before(version: str) -> SQLiteDatabase:
    """A store as a release before migration `version` left it: the migrations before that one."""
    db = SQLiteDatabase()
    for script in sorted(MIGRATIONS.glob("*.sql")):
        if script.name < version:
            db._conn.executescript(script.read_text())
    return db


def migrate_from(db: SQLiteDatabase, version: str) -> SQLiteDatabase:
    """The upgrade of a store `migrated_before(version)`: that migration and those after it."""
    for script in sorted(MIGRATIONS.glob("*.sql")):
        if script.name >= version:
            db._conn.executescript(script.read_text())
    return db


def run(coroutine):
    return asyncio.run(coroutine)


def nested(depth: int) -> list:
    """Lists nested `depth` deep: `[[]]` is 2 deep."""
    value: list = []
    for _ in range(depth - 1):
        value = [value]
    return value


class Calls:
    """An action that records `clock.now_ms` at each call."""

    def __init__(self):
        self.at: list[int] = []

    async def __call__(self):
        self.at.append(clock.now_ms)


def every(minutes: int, name: str = "census", action=None) -> Schedule:
    return Schedule(name, Every(minutes * MINUTE), action or Calls())


def calendar(expression, zone="UTC", name="weekly", action=None, overdue=None, **rules):
    return Schedule(name, Calendar(CronCalendar(expression, zone, **rules), overdue), action or Inputs())


def pulse(cycle, intervals=1, name="sweep", action=None):
    return Schedule(name, Pulse(cycle, intervals), action or Inputs())


def frozen():
    """A monotonic clock that never moves: a tick then spends none of its budget."""
    return 0.0


async def tick_at(db, schedules, now, **options):
    options.setdefault("monotonic", frozen)
    return await tick(db, schedules, now, **options)


def ticks(db, schedules, *moments, **options):
    async def all_ticks():
        return [await tick_at(db, schedules, moment, **options) for moment in moments]

    return asyncio.run(all_ticks())


def state(db, name="census"):
    return asyncio.run(ScheduleStore(db).state(name))


def last_tick(db, name="census"):
    return asyncio.run(ScheduleStore(db).last_tick(name))


def lost_run(tick):
    """The id of the run `lose_a_run` loses at `tick`: of a tick's run ids' form (run_id)."""
    return f"z{int(tick):012x}lostrun{'0' * 12}"


def lose_a_run(db, name, due, next_due, until, run_id=None, call=Call(), beside=False):
    """A worker takes the lease at the tick `due` and records the start, then vanishes with the
    run; its id. `beside`: claimed as `overlap: allow` claims, its record keeping its own lease."""
    run_id = run_id or lost_run(due)
    claim = Claim(name, due, next_due, run_id, call, beside=beside)
    claimed = asyncio.run(ScheduleStore(db).claim([claim], until, tick=due, started=due))
    assert claimed.recorded == {run_id}
    asyncio.run(db.all(LEASE_REACH, (until - due,)))  # as the worker's tick marked it
    return run_id


LEASE_REACH = """
UPDATE tickwork_app SET lease_reach = MAX(IFNULL(lease_reach, ?1), ?1), lease_short = MIN(IFNULL(lease_short, ?1), ?1)
WHERE id = 1
"""


def runs(db, name="census"):
    return asyncio.run(ScheduleStore(db).runs(name))


KEPT_RECORD = """
INSERT INTO tickwork_runs (id, schedule, due_at, tick_at, started_at, ended_at, outcome, trace)
VALUES (?1, ?2, ?3, ?3, ?3, ?3 + 5, ?4, 'trace-' || ?1)
"""


def kept_from_before_0017(db, schedule, *records):
    """Run records as a database made before migration 0017 keeps them, (id, tick, outcome) each:
    ids of no tick's form, below 'z', in the index by tick."""
    for id, tick, outcome in records:
        asyncio.run(db.all(KEPT_RECORD, (id, schedule, tick, outcome)))


class Inputs:
    """An action recording, at each call, the tick's time and the call's input."""

    def __init__(self):
        self.made: list[dict] = []

    async def __call__(self):
        self.made.append({"now": clock.now_ms, "at": call.at, "n": call.n, "i": call.i})

    @property
    def at(self):
        return [made["at"] for made in self.made]


class Blocking(Inputs):
    """Inputs whose first call waits until the test lets it end."""

    def __init__(self):
        super().__init__()
        self.release = asyncio.Event()

    async def __call__(self):
        await super().__call__()
        if len(self.made) == 1:
            await self.release.wait()


def while_first_call_runs(db, schedules, action: Blocking, first, during, after=()):
    """Ticks at `first`, whose call of `action` blocks; meanwhile ticks at each of `during`; then
    lets the call end and ticks at each of `after`. Returns the reports of `during` and `after`."""

    async def overlap():
        blocked = asyncio.create_task(tick_at(db, schedules, first))
        while not action.made:
            await asyncio.sleep(0)
        meanwhile = [await tick_at(db, schedules, moment) for moment in during]
        action.release.set()
        await blocked
        return meanwhile, [await tick_at(db, schedules, moment) for moment in after]

    return asyncio.run(asyncio.wait_for(overlap(), timeout=10))


# A Python Worker as Cloudflare's template makes one, with a D1 binding: what `tickwork init` is
# tried on (tests/test_tickwork_init.py, tests/e2e/test_a_worker_of_ones_own.py).
TEMPLATE_WRANGLER_TOML = """\
name = "my-worker"
main = "src/entry.py"
compatibility_date = "2026-04-21"
compatibility_flags = ["python_workers"]

[[d1_databases]]
binding = "DB"
database_name = "my-worker"
database_id = "00000000-0000-0000-0000-000000000001"
"""
# The same Worker as Cloudflare's current templates configure it: wrangler.jsonc, its comments.
TEMPLATE_WRANGLER_JSONC = """\
/**
 * For more details on how to configure Wrangler, refer to:
 * https://developers.cloudflare.com/workers/wrangler/configuration/
 */
{
	"$schema": "node_modules/wrangler/config-schema.json",
	"name": "my-worker",
	"main": "src/entry.py",
	"compatibility_date": "2026-04-21",
	"compatibility_flags": [
		"python_workers"
	],
	"observability": {
		"enabled": true
	},
	// where the Worker keeps its data; "// not a comment" inside a string stays
	"d1_databases": [
		{
			"binding": "DB",
			"database_name": "my-worker",
			"database_id": "00000000-0000-0000-0000-000000000001",
		},
	],
	/**
	 * Smart Placement
	 * https://developers.cloudflare.com/workers/configuration/smart-placement/#smart-placement
	 */
	// "placement": { "mode": "smart" },
}
"""
TEMPLATE_ENTRY = """\
from workers import Response, WorkerEntrypoint


class Default(WorkerEntrypoint):
    async def fetch(self, request):
        return Response("hello")
"""


def as_typed_in_a_shell() -> dict:
    """The environment of a shell, not of the `make test` that runs the tests."""
    return {key: value for key, value in os.environ.items() if key not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}


def read_into(stream, lines: list) -> None:
    """Appends each line of `stream` to `lines`, on a thread of its own, until it ends."""
    threading.Thread(target=lambda: lines.extend(stream), daemon=True).start()


def when_printed(lines: list, pattern: str, process: subprocess.Popen, timeout: float = 300):
    """The match of `pattern` in what `lines` hold once it is there; None if `process` ended or
    `timeout` seconds passed first."""
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        found = re.search(pattern, "".join(lines))
        if found:
            return found
        time.sleep(0.1)
    return re.search(pattern, "".join(lines))


def stop(process: subprocess.Popen) -> None:
    """Ctrl-C to a process started in a session of its own, and to what it started; killed if it
    has not ended in 30 s."""
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
def in_node(module: Path, names: str, expression: str) -> dict:
    """`{"value": ...}` or `{"refused": message}`: the JS `expression`, with `names` imported
    from the ES module at `module`, evaluated in Node (what it throws is refused)."""
    script = f"""
        import {{ {names} }} from {json.dumps(module.as_uri())};
        let answer;
        try {{
          answer = {{ value: {expression} }};
        }} catch (error) {{
          answer = {{ refused: error.message }};
        }}
        process.stdout.write(JSON.stringify(answer));
    """
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
