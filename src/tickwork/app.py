"""The app as the Worker runs it: the schedules the build wrote, with their actions imported."""

import importlib
from dataclasses import dataclass
from types import ModuleType

from .model import Schedule


@dataclass(frozen=True)
class App:
    store: str | None  # the D1 binding that keeps schedule state
    schedules: tuple[Schedule, ...]

    @classmethod
    def from_manifest(cls, manifest: ModuleType) -> "App":
        """Imports every action now, so a Worker's memory snapshot holds them."""
        schedules = tuple(
            Schedule(
                name=entry["name"],
                every=entry["every_ms"],
                action=getattr(importlib.import_module(entry["module"]), entry["action"]),
                source=entry["source"],
            )
            for entry in manifest.SCHEDULES
        )
        return cls(manifest.STORE, schedules)
