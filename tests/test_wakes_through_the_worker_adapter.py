"""Wakes through the Worker's side on CPython: the cron tick sends them with the Queue binding's
batch send, each with its `delaySeconds`, and the `queue` handler ticks on a batch of the wake
queue, as the SDK's objects hand them over (a D1-shaped binding over SQLite)."""

import sqlite3
from types import SimpleNamespace

from helpers import MIGRATIONS, run
from test_worker_adapter import D1Shaped

from tickwork import Schedule, call
from tickwork.adapters.workers import run_cron_tick, run_queue
from tickwork.app import App
from tickwork.grid import Every
from tickwork.model import Retry
from tickwork.times import HOUR, SECOND, utc

NINE = utc("2026-03-02 09:00")


class QueueBinding:
    def __init__(self):
        self.batches = []

    async def sendBatch(self, messages):
        self.batches.append(list(messages))


class Delivered:
    def __init__(self, id, body):
        self.id, self.body, self.attempts, self.verdict = id, body, 1, None

    def ack(self):
        self.verdict = "ack"

    def retry(self):
        self.verdict = "retry"


def test_a_cron_tick_sends_a_retry_s_wake_delayed_and_the_wake_queue_s_batch_runs_it(tmp_path):
    database = tmp_path / "d1.sqlite"
    setup = sqlite3.connect(database)
    for script in sorted(MIGRATIONS.glob("*.sql")):
        setup.executescript(script.read_text())
    setup.close()
    calls = []

    async def sync():
        calls.append(call.at)
        if len(calls) == 1:
            raise RuntimeError("down")

    app = App("DB", (Schedule("sync", Every(HOUR), sync, retry=Retry(1, 20 * SECOND)),),
              producers={"WAKES": "tickwork-wakes"})
    app.wakes = "WAKES"
    wakes = QueueBinding()
    env = SimpleNamespace(DB=D1Shaped(database), WAKES=wakes)

    async def ticks():
        for moment in (NINE - HOUR, NINE):
            await run_cron_tick(app, env, SimpleNamespace(cron="* * * * *", scheduledTime=moment))

    run(ticks())
    [[message]] = wakes.batches
    assert message["body"] == {"tickwork": 1, "wake": NINE + 20 * SECOND}
    assert message["delaySeconds"] == 0  # the tick ran long after its time: due at once
    delivered = Delivered("m1", message["body"])
    run(run_queue(app, env, SimpleNamespace(queue="tickwork-wakes", messages=[delivered])))
    assert len(calls) == 2 and delivered.verdict == "ack"
    again = Delivered("m2", message["body"])  # delivered twice: nothing more
    run(run_queue(app, env, SimpleNamespace(queue="tickwork-wakes", messages=[again])))
    assert len(calls) == 2 and again.verdict == "ack"


def test_the_wake_queue_is_the_queue_of_the_wakes_binding():
    app = App("DB", (), producers={"WAKES": "tickwork-wakes", "EVENTS": "shop-events"})
    assert app.wake_queue is None
    app.wakes = "WAKES"
    assert app.wake_queue == "tickwork-wakes"
