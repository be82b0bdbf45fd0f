"""`make bench`: exact timing through delayed queue messages (issue 27), before and after, with
queues bound, on the SQLite store with D1's semantics, the invocation's wall clock passed in:

- a quiet minute (nothing due): its D1 statements and rows written, ticking at the 10-second
  marks (no wake queue) and with a wake queue (the minute tick alone);
- the lag from due to start of a `once` item due at :37 and of a 20 s retry of a run that failed
  in an invocation begun 300 ms after its minute (as cron invocations are).

Goals, or the bench fails: with a wake queue a quiet minute is 2 statements and 1 row written,
each lag under a second (a wake is for a whole second), and one batch send a tick.
"""

import asyncio
import json
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(root / "src"))

from tickwork import Schedule  # noqa: E402
from tickwork.adapters.sqlite import SQLiteDatabase  # noqa: E402
from tickwork.app import App  # noqa: E402
from tickwork.invocation import cron_invocation  # noqa: E402
from tickwork.kinds.every import Every  # noqa: E402
from tickwork.model import Retry  # noqa: E402
from tickwork.outbox.wakes import consume_wakes  # noqa: E402
from tickwork.per_item import Items  # noqa: E402
from tickwork.testing import DelayedQueue, QueueMessage  # noqa: E402
from tickwork.tick.wakes import Wakes  # noqa: E402
from tickwork.times import HOUR, MINUTE, SECOND, utc  # noqa: E402

NINE = utc("2026-03-02 09:00")
LATE = 300  # ms the cron invocation begins after its minute
GOALS = {"quiet_minute_statements": 2, "quiet_minute_rows_written": 1, "lag_ms": SECOND}
FAILED: list[int] = []


async def nothing():
    pass


async def flaky():
    FAILED.append(1)
    if len(FAILED) == 1:
        raise RuntimeError("the far side is down")


class Wall:
    """The invocation's wall clock, moved on by its sleeps."""

    def __init__(self, at: int):
        self.at = at

    def __call__(self) -> int:
        return self.at

    async def sleep(self, seconds: float) -> None:
        self.at += round(seconds * 1000)


def database() -> SQLiteDatabase:
    db = SQLiteDatabase()
    db.apply_migrations(root / "migrations")
    return db


def app_of(*schedules) -> App:
    app = App("DB", tuple(schedules), producers={"WAKES": "tickwork-wakes"})
    app.schema_current = True  # read by the isolate's first invocation
    return app


async def minute(app, db, at: int, queue: DelayedQueue | None):
    """The cron invocation of the minute `at`, then the wakes it sent, each at its time."""
    wall = Wall(at + LATE)
    wakes = None if queue is None else Wakes(queue, wall)
    if queue is not None:
        queue._clock = wall
    reports = await cron_invocation(db, app, at, clock=wall, sleep=wall.sleep, cap=900, wakes=wakes)
    for when, body in [] if queue is None else queue.due(at + MINUTE):
        wall.at = when
        report = await consume_wakes(db, app, [QueueMessage(str(when), body)], queue=queue, clock=wall,
                                     sleep=wall.sleep, cap=900, monotonic=lambda: 0.0)
        reports += [report] if report is not None else []
    return reports


async def quiet_minute(with_wakes: bool) -> dict:
    db, app = database(), app_of(Schedule("hourly", Every(HOUR), nothing))
    await minute(app, db, NINE, DelayedQueue() if with_wakes else None)
    before = db.statements_run, db.rows_written
    await minute(app, db, NINE + MINUTE, DelayedQueue() if with_wakes else None)
    return {"statements": db.statements_run - before[0], "rows_written": db.rows_written - before[1]}


async def lags(with_wakes: bool) -> dict:
    FAILED.clear()
    db, app = database(), app_of(Schedule("sync", Every(MINUTE), flaky, retry=Retry(1, 20 * SECOND)))
    await minute(app, db, NINE - MINUTE, None)  # the tick that first sees `sync`
    await Items(db, lambda: NINE - HOUR).once(nothing, None, NINE + 37 * SECOND)
    queue = DelayedQueue() if with_wakes else None
    reports = await minute(app, db, NINE, queue)
    runs = [run for report in reports for run in report.runs]
    [first] = [r for r in runs if r.schedule == "sync" and r.attempt == 1]
    [retry] = [r for r in runs if r.schedule == "sync" and r.attempt == 2]
    [once] = [r for r in runs if r.schedule != "sync"]
    return {"once_due_at_37s_lag_ms": once.started_at - once.due_at,
            "retry_20s_lag_ms": retry.started_at - first.next_attempt_at,
            "wake_sends": queue.sends if queue else 0, "wakes": len(queue.sent) if queue else 0}


async def main() -> dict:
    return {"bench": "wakes",
            "marks": {**await quiet_minute(False), **await lags(False)},
            "wakes": {**await quiet_minute(True), **await lags(True)}}


def missed(result: dict) -> list[str]:
    after = result["wakes"]
    misses = []
    if after["statements"] > GOALS["quiet_minute_statements"]:
        misses.append(f"a quiet minute made {after['statements']} statements (goal {GOALS['quiet_minute_statements']})")
    if after["rows_written"] > GOALS["quiet_minute_rows_written"]:
        misses.append(f"a quiet minute wrote {after['rows_written']} rows (goal {GOALS['quiet_minute_rows_written']})")
    for lag in ("once_due_at_37s_lag_ms", "retry_20s_lag_ms"):
        if after[lag] >= GOALS["lag_ms"]:
            misses.append(f"{lag} was {after[lag]} ms (goal: under {GOALS['lag_ms']} ms)")
    if after["wake_sends"] > 2:  # the minute tick's, and the retry's from the tick whose run failed
        misses.append(f"{after['wake_sends']} batch sends of wakes (goal: one a tick that sends any)")
    return misses


if __name__ == "__main__":
    result = asyncio.run(main())
    print(json.dumps(result))
    problems = missed(result)
    for problem in problems:
        print(f"wakes: {problem}", file=sys.stderr)
    sys.exit(1 if problems else 0)
