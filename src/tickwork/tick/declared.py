"""The app's declared schedules, worked out once: only a deploy changes them, so what a tick
needs of the whole set (by name, its fingerprint, the calendars that must claim their moment)
is computed once per isolate, never per tick."""

from __future__ import annotations

from functools import cached_property
from typing import Iterable

from ..model import Schedule


class DeclaredSet:
    """A fixed set of declared schedules; a tick reads only the parts it needs, each computed
    at its first read and kept (a Worker's memory snapshot holds what import computed)."""

    def __init__(self, schedules: Iterable[Schedule]) -> None:
        self.schedules: tuple[Schedule, ...] = tuple(schedules)

    @cached_property
    def by_name(self) -> dict[str, Schedule]:
        return {schedule.name: schedule for schedule in self.schedules}

    @cached_property
    def names(self) -> list[str]:
        return list(self.by_name)

    @cached_property
    def fingerprint(self) -> str:
        """The set as the state rows see it: each schedule's name and form, and its start."""
        import hashlib  # at first use: a Worker's cold start skips it

        # A start joins only where one is declared: a set without any keeps its fingerprint.
        declared = "\n".join(sorted(f"{s.name}\t{s.timing.form}" + (f"\tstarts {s.starts}" if s.starts else "")
                                    for s in self.schedules))
        return hashlib.sha256(declared.encode()).hexdigest()

    @cached_property
    def claiming_moments(self) -> frozenset[str]:
        """The entries whose calls must claim their moment: calendars sharing an action."""
        by_action: dict[str, list[str]] = {}
        for schedule in self.schedules:
            if schedule.timing.coalesces:
                by_action.setdefault(coalescing_key(schedule), []).append(schedule.name)
        return frozenset(name for names in by_action.values() if len(names) > 1 for name in names)


def coalescing_key(schedule: Schedule) -> str:
    """What makes two declared calendars one call: the action they run, as `module.qualname`, the
    key their moments are claimed under (tickwork_moments.action, persisted). Not app.action_key,
    `module:qualname`, which handed-over rows keep to find their action again."""
    action = schedule.action
    return f"{getattr(action, '__module__', '')}.{getattr(action, '__qualname__', repr(action))}"


def declared(schedules: DeclaredSet | Iterable[Schedule]) -> DeclaredSet:
    return schedules if isinstance(schedules, DeclaredSet) else DeclaredSet(schedules)


Declared = DeclaredSet  # its old name
action_key = coalescing_key  # its old name
