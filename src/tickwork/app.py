"""The app as the Worker runs it: the entries the build wrote, with their actions imported."""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from functools import cached_property
from types import ModuleType
from typing import TYPE_CHECKING

from .grid import Every
from .model import Action, Consumer, Schedule
from .once import Once
from .pulses import Pulse
from .purging import purge_action
from .timing import Timing

if TYPE_CHECKING:
    from .declared import Declared


def timing_of(entry: dict) -> Timing:
    kind = entry["kind"]
    if kind in ("schedule", "purge"):
        return Every(entry["every_ms"])
    if kind == "calendar":
        from .calendars import Calendar, cron_calendar  # only an app with calendars needs them

        cron = cron_calendar(entry["cron"], entry["zone"], entry["nonexistent"], entry["repeated"])
        return Calendar(cron, entry.get("overdue_ms"))
    if kind == "pulse":
        return Pulse(entry["cycle_ms"], entry["intervals"])
    if kind == "once":
        return Once(entry["at_ms"])
    raise ValueError(f"unknown kind of schedule in the manifest: {kind!r}; rebuild the app")


def action_of_entry(entry: dict) -> Action:
    """A declared entry's action: the app's, imported now; a purge's, tickwork's own."""
    if entry["kind"] == "purge":
        return purge_action(entry["table"], entry["column"], entry["format"], entry.get("after_ms"),
                            entry.get("after_setting"))
    return getattr(importlib.import_module(entry["module"]), entry["action"])


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


@dataclass(frozen=True)
class App:
    store: str | None  # the D1 binding that keeps schedule state
    schedules: tuple[Schedule, ...]
    statements_per_tick: int | None = None  # at most this many D1 statements a tick
    producers: dict = field(default_factory=dict)  # producer binding: the queue's name
    consumers: dict = field(default_factory=dict)  # queue name: its Consumer

    queues_bound: bool = False  # producers or consumers in wrangler.toml
    retention: int = 30 * 86_400_000  # how long run records are kept: [tool.tickwork] retention
    settings: tuple[str, ...] = ()  # the settings (Worker vars) purges read their `after:` from

    @cached_property
    def declared(self) -> Declared:
        """The declared set as ticks read it, worked out once an isolate."""
        from .declared import Declared

        return Declared(self.schedules)

    @property
    def has_queues(self) -> bool:
        """While the app has queues bound, each cron run ticks again at each 10-second mark."""
        return bool(self.queues_bound or self.producers or self.consumers)

    @property
    def consumed_here(self) -> frozenset[str]:
        """The producer bindings whose queue the app consumes itself."""
        return frozenset(binding for binding, queue in self.producers.items() if queue in self.consumers)

    @classmethod
    def from_manifest(cls, manifest: ModuleType) -> App:
        """Imports every action now, so a Worker's memory snapshot holds them (and a missing one
        fails the deploy, not a tick); the machinery that runs them is imported at first use."""
        schedules = tuple(
            Schedule(
                name=entry["name"],
                timing=timing_of(entry),
                action=action_of_entry(entry),
                source=entry["source"],
            )
            for entry in manifest.SCHEDULES
        )
        consumers = {
            entry["queue"]: Consumer(
                entry["queue"], getattr(importlib.import_module(entry["module"]), entry["action"]),
                entry["max_retries"],
            )
            for entry in getattr(manifest, "CONSUMERS", ())
        }
        return cls(
            manifest.STORE, schedules, getattr(manifest, "STATEMENTS_PER_TICK", None),
            dict(getattr(manifest, "PRODUCERS", {})), consumers, getattr(manifest, "QUEUES_BOUND", False),
            getattr(manifest, "RETENTION_MS", cls.retention),
            tuple(sorted({e["after_setting"] for e in manifest.SCHEDULES if e.get("after_setting")})),
        )
