"""Testing an app's schedules without a Worker: a store that binds and refuses as D1 does, and
ticks at the UTC times a test names, each giving back its report. Plain Python (no pytest, no
Worker, no network); imported by tests only, never by a Worker's cold start.

    import asyncio

    from tickwork.testing import built_app, local_store, tick_at

    APP = built_app()  # what `tickwork build` wrote into build/app

    def test_tidy_up_runs_an_hour_after_the_first_tick():
        store = local_store()  # the app's migrations/, tickwork's among them
        asyncio.run(tick_at(APP, "2026-03-02T09:00Z", store))  # the first tick that sees it
        report = asyncio.run(tick_at(APP, "2026-03-02T10:00Z", store))
        assert ("tidy_up", "succeeded") in [(run.schedule, run.outcome) for run in report.runs]

What the actions read of the Worker, they read from `env.given(...)` around the tick, as in a
test of the action alone; the tick's time is the one given, never the clock's.
"""

from __future__ import annotations

import asyncio
import importlib.util
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Union

from .app import App
from .database import Database
from .metrics import MemoryDataset as MemoryDataset  # an Analytics Engine dataset keeping its points
from .times import instant

if TYPE_CHECKING:
    from .adapters.sqlite import SQLiteDatabase
    from .tick.declared import Declared
    from .model import Schedule
    from .tick import TickReport

    Schedules = Union[App, Iterable[Schedule], Declared]


def local_store(migrations: str | Path = "migrations", path: str | Path = ":memory:") -> SQLiteDatabase:
    """A SQLite store with the migrations in `migrations` applied, in their order (the app's
    `migrations_dir`, where `tickwork build` keeps tickwork's own beside the app's): it binds
    values and refuses what D1 refuses as the Worker's binding does, and caps an invocation's calls
    at D1's. In memory unless `path` names a file."""
    from .adapters.sqlite import SQLiteDatabase

    scripts = sorted(Path(migrations).glob("*.sql"))
    if not scripts:
        raise FileNotFoundError(f"no migrations in {Path(migrations).resolve()}: pass the app's migrations_dir "
                                "(`tickwork build` copies tickwork's into it)")
    db = SQLiteDatabase(path)
    db.apply_migrations(migrations)
    return db


def built_app(directory: str | Path = "build/app") -> App:
    """The app as the Worker builds it at its cold start, from the manifest `tickwork build` wrote
    into `directory`: its actions imported from the modules the manifest names, as the test's
    import path finds them."""
    manifest = Path(directory) / "tickwork_manifest.py"
    if not manifest.is_file():
        raise FileNotFoundError(f"no {manifest}: run `tickwork build` first")
    spec = importlib.util.spec_from_file_location("tickwork_manifest", manifest)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return App.from_manifest(module)


def frozen() -> float:
    """A monotonic clock that never moves: a tick then spends none of its time budget, however slow
    the machine running the test."""
    return 0.0


class StillClock:
    """A tick's monotonic clock in a test, with its `sleep`: it stands still (as `frozen`) but for
    the pauses the tick takes between attempts at a write D1 refused, which pass on it at once,
    not in the test. So a write D1 keeps refusing is given up when its leases lapse, as on the
    Worker, and the test neither waits nor hangs."""

    def __init__(self) -> None:
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds

    async def sleep(self, seconds: float) -> None:
        self.seconds += seconds
        await asyncio.sleep(0)  # a pause, as on the Worker: the tick's other runs go on meanwhile


async def tick_at(app_or_schedules: Schedules, now: int | str, store: Database, **options: Any) -> TickReport:
    """One tick at `now` (epoch ms, or a UTC time such as "2026-03-02T09:00Z") of an `App` (its
    schedules, and its retention of run records) or of the schedules given, against `store`.
    `options` are the tick's own (`max_statements`, `settings`, `outbox`, ...); its monotonic clock
    and its pauses are a `StillClock`'s unless they give `monotonic` and `sleep`."""
    from .tick import tick

    still = StillClock()
    options.setdefault("monotonic", still)
    options.setdefault("sleep", still.sleep)
    schedules: Any = app_or_schedules
    if isinstance(app_or_schedules, App):
        schedules = app_or_schedules.declared
        options.setdefault("retention", app_or_schedules.retention)
    return await tick(store, schedules, _ms(now), **options)


async def ticks_at(app_or_schedules: Schedules, moments: Iterable[int | str], store: Database,
                   **options: Any) -> list[TickReport]:
    """A tick at each of `moments`, in order: their reports."""
    return [await tick_at(app_or_schedules, moment, store, **options) for moment in moments]


def _ms(now: int | str) -> int:
    if isinstance(now, int):
        return now
    ms = instant(now)
    if ms is None:
        raise ValueError(f"{now!r} is no time: write epoch ms or a UTC time such as 2026-03-02T09:00Z")
    return ms


class QueueMessage:
    """A message as a queue hands it to the Worker: what the handler made of it is kept."""

    def __init__(self, id: str, body: Any, attempts: int = 1) -> None:
        self.id, self.body, self.attempts = id, body, attempts
        self.acked = self.retried = False

    def ack(self) -> None:
        self.acked = True

    def retry(self) -> None:
        self.retried = True


class DelayedQueue:
    """A real queue in memory for a test's wakes (`[tool.tickwork] wakes`): each message sent is
    held till its `delaySeconds` pass on the test's clock (`now`, epoch ms, which the helpers
    below set), then delivered by `wakes_delivered`; one the handler retries is held again.
    `sends` counts the batch sends, `sent` every message as (deliver at, body). Given a `clock`,
    the queue's time is that clock's."""

    def __init__(self, clock: Callable[[], int] | None = None) -> None:
        self._clock = clock
        self.now = 0
        self.sends = 0
        self.sent: list[tuple[int, Any]] = []
        self.held: list[tuple[int, int, Any]] = []  # (deliver at, the order sent, body)

    def clock(self) -> int:
        return self._clock() if self._clock is not None else self.now

    async def send_delayed(self, messages: list[tuple[dict[str, Any], int]]) -> None:
        self.sends += 1
        now = self.clock()
        for body, delay in messages:
            self.sent.append((now + delay * 1000, body))
            self.held.append((now + delay * 1000, len(self.sent), body))

    def due(self, until: int) -> list[tuple[int, Any]]:
        """Takes the messages held for delivery by `until`: each with its time, in order."""
        ready = sorted(m for m in self.held if m[0] <= until)
        self.held = [m for m in self.held if m[0] > until]
        return [(at, body) for at, _, body in ready]


async def tick_with_wakes(app: App, now: int | str, store: Database, queue: DelayedQueue,
                          **options: Any) -> TickReport:
    """`tick_at` for an app whose wakes go to `queue`: the minute tick, sending them."""
    from .tick.wakes import Wakes

    queue.now = _ms(now)
    return await tick_at(app, now, store, wakes=Wakes(queue, queue.clock), **options)


async def wakes_delivered(app: App, until: int | str, store: Database, queue: DelayedQueue,
                          **options: Any) -> list[TickReport]:
    """Delivers each wake `queue` holds for delivery by `until`, at its time, one batch a time, to
    the wake queue's consumer, as the Worker's `queue` handler does: the reports of the ticks made."""
    from .outbox.wakes import consume_wakes

    reports = []
    while ready := queue.due(_ms(until)):
        at = ready[0][0]
        batch = [QueueMessage(f"wake-{at}-{k}", body) for k, (when, body) in enumerate(ready) if when == at]
        queue.held += [(when, 0, body) for when, body in ready if when != at]
        queue.now = at
        still = StillClock()
        report = await consume_wakes(store, app, batch, queue=queue, clock=queue.clock, sleep=still.sleep,
                                     cap=app.statements_per_tick or 900, monotonic=still, **options)
        queue.held += [(at + 1000, 0, m.body) for m in batch if m.retried]  # the queue's retry, a second on
        if report is not None:
            reports.append(report)
    return reports


class WorkflowInstance:
    """One instance of a `Workflows` stand-in: its id, the params it was created with, its status."""

    def __init__(self, id: str, params: Any):
        self.id = id
        self.params = params
        self.state = "queued"
        self.output: Any = None
        self.error: dict[str, str] | None = None

    async def status(self) -> dict[str, Any]:
        said: dict[str, Any] = {"status": self.state}
        if self.state == "complete":
            said["output"] = self.output
        if self.error is not None:
            said["error"] = self.error
        return said

    async def terminate(self) -> None:
        if self.state in ("complete", "errored", "terminated"):
            raise RuntimeError(f"instance.not_running: instance {self.id} has ended ({self.state})")
        self.state = "terminated"

    async def pause(self) -> None:
        self.state = "paused"

    async def resume(self) -> None:
        self.state = "running"


class Workflows:
    """A Workflow binding for a test, in memory, with the platform binding's semantics: `create`
    takes `{"id", "params"}` and refuses an id it has (`instance.already_exists`), `get` finds an
    instance or refuses (`instance.not_found`), and an instance says its `status()` and may be
    terminated while it goes on. The test moves each instance on, as its steps would:

        REPORTS = Workflows()
        with env.given(REPORTS=REPORTS):
            asyncio.run(tick_at(APP, "2026-03-02T09:00Z", store))   # the run creates the instance
            REPORTS.complete(REPORTS.ids[0], {"rows": 12})          # its steps ran
            asyncio.run(tick_at(APP, "2026-03-02T09:01Z", store))   # the run settles, succeeded
    """

    def __init__(self) -> None:
        self.instances: dict[str, WorkflowInstance] = {}
        self.creates = 0  # every call of `create`, refused ones too

    @property
    def ids(self) -> list[str]:
        """The instances' ids, in the order they were created."""
        return list(self.instances)

    async def create(self, options: dict[str, Any] | None = None) -> WorkflowInstance:
        self.creates += 1
        options = options or {}
        id = str(options.get("id") or f"instance-{len(self.instances) + 1}")
        if len(id) > 64:
            raise ValueError(f"instance.invalid_id: {id!r} is longer than 64 characters")
        if id in self.instances:
            raise RuntimeError(f"instance.already_exists: an instance {id} already exists")
        self.instances[id] = WorkflowInstance(id, options.get("params"))
        return self.instances[id]

    async def get(self, id: str) -> WorkflowInstance:
        if id not in self.instances:
            raise LookupError(f"instance.not_found: no instance {id}")
        return self.instances[id]

    def running(self, id: str) -> None:
        self.instances[id].state = "running"

    def complete(self, id: str, output: Any = None) -> None:
        """Its last step returned `output`."""
        instance = self.instances[id]
        instance.state, instance.output = "complete", output

    def errored(self, id: str, message: str, name: str = "Error") -> None:
        """A step failed past its retries with `message`."""
        instance = self.instances[id]
        instance.state, instance.error = "errored", {"name": name, "message": message}
