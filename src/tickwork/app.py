"""The app as the Worker runs it: the entries the build wrote, with their actions imported."""

from __future__ import annotations

import importlib
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING

RETENTION = 30 * 86_400_000  # run records are kept 30 days unless [tool.tickwork] retention says

# The kinds of timing, the purge and the records a tick keeps are imported when the app's
# schedules are first read (by its first tick), not at cold start (docs/explanation/tick.md, "Cold start").
if TYPE_CHECKING:
    from typing import Any, Mapping

    from .tick.declared import Declared
    from .model import Action, Schedule


# The kinds of schedule a manifest names: kinds.forms.KINDS is the registry of them. The names
# alone are here, where the manifest's entries are checked at cold start.
KINDS = ("schedule", "purge", "calendar", "pulse", "once")


def _known(entry: Mapping[str, Any]) -> str:
    kind: str = entry["kind"]
    if kind not in KINDS:
        raise ValueError(f"unknown kind of schedule in the manifest: {kind!r}; rebuild the app")
    return kind


def __getattr__(name: str) -> Any:
    """`timing_of` and `retry_of_entry`, moved to kinds.forms, found there at first use: the
    kinds are not imported at cold start."""
    if name in ("timing_of", "retry_of_entry"):
        from .kinds import forms

        return getattr(forms, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def action_of_entry(entry: dict) -> Action:
    """A declared entry's action: the app's, imported now; a purge's, tickwork's own."""
    if entry.get("workflow"):  # the run creates the Workflow's instance (tick.workflows); no action of the app's
        return _through_workflow
    if entry["kind"] == "purge":
        from .purging import purge_action

        return purge_action(entry["table"], entry["column"], entry["format"], entry.get("after_ms"),
                            entry.get("after_setting"))
    return _imported(entry)


def action_key(action: Action) -> str:
    """How a schedule handed over at run time names its action: `module:qualname`."""
    return f"{action.__module__}:{action.__qualname__}"


def action_of(key: str) -> Action | None:
    """The action a key names, or None where the app no longer has it."""
    module_name, _, qualname = key.partition(":")
    try:
        found: object = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError, ValueError):
        return None
    return found if callable(found) else None


class App:
    """The app's store, schedules, queues and settings. Built from the manifest, it imports each
    action at once and makes its schedules and consumers when they are first read."""

    def __init__(
        self,
        store: str | None,  # the D1 binding that keeps schedule state
        schedules: tuple[Schedule, ...] | None,
        statements_per_tick: int | None = None,  # at most this many D1 statements a tick
        producers: dict | None = None,  # producer binding: the queue's name
        consumers: dict | None = None,  # queue name: its Consumer
        queues_bound: bool = False,  # producers or consumers in wrangler.toml
        retention: int = RETENTION,  # how long run records are kept: [tool.tickwork] retention
        settings: tuple[str, ...] = (),  # the settings (Worker vars) purges read their `after:` from
        alerts: str | None = None,  # the producer binding alerts go to: [tool.tickwork] alerts
        # The operator's console, where the app opts in: {"prefix", "team", "aud", "token"}
        # ([tool.tickwork] console, console_team, console_aud, console_token); None serves none.
        console: dict | None = None,
    ):
        self.store = store
        if schedules is not None:  # else made from the manifest's entries when first read
            self.schedules = schedules
        self.statements_per_tick = statements_per_tick
        self.producers = {} if producers is None else producers
        if consumers is not None:
            self.consumers = consumers
        self.queues_bound = queues_bound
        self.retention = retention
        self.settings = settings
        self.alerts = alerts
        self.console = console
        # The Worker's version-metadata binding ([tool.tickwork] version_metadata): each deploy
        # marker keeps the version it gives.
        self.version_metadata: str | None = None
        # The producer binding wakes are sent through ([tool.tickwork] wakes): its queue is the
        # Worker's own, whose messages tick (tick/wakes.py, outbox/wakes.py). None: the 10-second marks.
        self.wakes: str | None = None
        # The Analytics Engine dataset ([tool.tickwork] metrics) each run and skip writes a point to.
        self.metrics: str | None = None
        self._entries: tuple = ()  # from the manifest: (entry, its action; None for a purge, made later)
        self._consumed: tuple = ()  # from the manifest: (entry, its action) each
        self.schema_current = False  # the store found at this tickwork's schema, once an isolate (invocation.py)

    @cached_property
    def schedules(self) -> tuple[Schedule, ...]:
        return tuple(self._schedule_of(entry, action or action_of_entry(entry)) for entry, action in self._entries)

    @staticmethod
    def _schedule_of(entry: dict, action: Any) -> Schedule:
        from .kinds.concurrency import of_entry, workflow_key
        from .kinds.forms import retry_of_entry, timing_of
        from .model import Schedule
        from .tick.declared import action_named

        return Schedule(name=entry["name"], timing=timing_of(entry), action=action, source=entry["source"],
                        retry=retry_of_entry(entry), limit=entry.get("limit_ms"), starts=entry.get("starts_ms"),
                        overlap=entry.get("overlap"), jitter=entry.get("jitter_ms"),
                        concurrency=of_entry(entry, workflow_key(entry["workflow"]) if entry.get("workflow")
                                             else action_named(action)),
                        workflow=entry.get("workflow"))

    @cached_property
    def consumers(self) -> dict:
        from .model import Consumer

        return {entry["queue"]: Consumer(entry["queue"], action, entry["max_retries"])
                for entry, action in self._consumed}

    @cached_property
    def declared(self) -> Declared:
        """The declared set as ticks read it, worked out once an isolate."""
        from .tick.declared import Declared

        return Declared(self.schedules)

    @property
    def has_queues(self) -> bool:
        """While the app has queues bound, each cron run ticks again at each 10-second mark."""
        return bool(self.queues_bound or self.producers or self.consumers)

    @property
    def wake_queue(self) -> str | None:
        """The queue the app's wakes go to and come from: the queue of its `wakes` binding."""
        return self.producers.get(self.wakes) if self.wakes else None

    @property
    def consumed_here(self) -> frozenset[str]:
        """The producer bindings whose queue the app consumes itself."""
        return frozenset(binding for binding, queue in self.producers.items() if queue in self.consumers)

    @classmethod
    def from_manifest(cls, manifest: ModuleType) -> App:
        """Imports every action now, so a Worker's memory snapshot holds them (and a missing one,
        or a kind of schedule this tickwork does not know, fails the deploy, not a tick); the
        machinery that runs them is imported at first use."""
        app = cls(
            manifest.STORE, None, getattr(manifest, "STATEMENTS_PER_TICK", None),
            dict(getattr(manifest, "PRODUCERS", {})), None, getattr(manifest, "QUEUES_BOUND", False),
            getattr(manifest, "RETENTION_MS", RETENTION),
            tuple(sorted({e["after_setting"] for e in manifest.SCHEDULES if e.get("after_setting")})),
            getattr(manifest, "ALERTS", None),
            getattr(manifest, "CONSOLE", None),
        )
        app.version_metadata = getattr(manifest, "VERSION_METADATA", None)
        app.wakes = getattr(manifest, "WAKES", None)
        app.metrics = getattr(manifest, "METRICS", None)
        app._entries = tuple((entry, None if _known(entry) == "purge" or entry.get("workflow") else _imported(entry))
                             for entry in manifest.SCHEDULES)
        app._consumed = tuple((entry, _imported(entry)) for entry in getattr(manifest, "CONSUMERS", ()))
        return app


def _imported(entry: dict) -> Action:
    return getattr(importlib.import_module(entry["module"]), entry["action"])


async def _through_workflow() -> None:
    """A `workflow:` schedule's action: never called, as its run creates the Workflow's instance."""
    raise RuntimeError("a schedule run through a Workflow creates its instance; it has no action to call")
