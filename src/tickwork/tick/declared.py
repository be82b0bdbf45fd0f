"""The app's declared schedules, worked out once: only a deploy changes them, so what a tick
needs of the whole set (by name, its fingerprint, the calendars that must claim their moment)
is computed once per isolate, never per tick."""

from __future__ import annotations

from functools import cached_property
from dataclasses import asdict
from typing import Any, Iterable

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
    def described(self) -> dict[str, dict[str, Any]]:
        """What each schedule declares, as a deploy marker keeps it and tells the next one apart
        from: its form, retry rule, limit and action."""
        import json  # at first use: a Worker's cold start skips it

        # as JSON keeps it, so a marker's kept set compares equal to the one it was made from
        return {s.name: json.loads(json.dumps(described(s))) for s in self.schedules}

    @cached_property
    def fingerprint(self) -> str:
        """The set as a deploy changes it: each schedule's name and what it declares (`described`),
        so a deploy that changes only a retry rule is noticed, and marked, too."""
        import hashlib  # at first use: a Worker's cold start skips it
        import json

        return hashlib.sha256(json.dumps(self.described, sort_keys=True).encode()).hexdigest()

    @cached_property
    def claiming_moments(self) -> frozenset[str]:
        """The entries whose calls must claim their moment: calendars sharing an action."""
        by_action: dict[str, list[str]] = {}
        for schedule in self.schedules:
            if schedule.timing.coalesces:
                by_action.setdefault(coalescing_key(schedule), []).append(schedule.name)
        return frozenset(name for names in by_action.values() if len(names) > 1 for name in names)


def described(schedule: Schedule) -> dict[str, Any]:
    """One schedule as a deploy marker keeps it: the parts a deploy may change."""
    retry = schedule.retry
    kept = {"form": schedule.timing.form, "retry": None if retry is None else asdict(retry),
            "limit": schedule.limit, "action": action_named(schedule.action)}
    # The parts the form leaves out (`overdue:`, `skip:`, `starts:`, a count, `concurrency:`) join only where one is
    # declared, as an older marker kept none; skip dates (up to 1,000) as a digest, compared only.
    skip = getattr(schedule.timing, "skip", ())
    parts = (("overdue", schedule.timing.overdue), ("skip", _digest(skip) if skip else None),
             ("starts", schedule.starts), ("times", schedule.times), ("overlap", schedule.overlap),
             ("jitter", schedule.jitter),
             ("concurrency", None if schedule.concurrency is None else list(schedule.concurrency)))
    return kept | {key: value for key, value in parts if value is not None}


def _digest(dates: Iterable[tuple[str, str]]) -> str:
    import hashlib  # at first use: a Worker's cold start skips it

    return hashlib.sha256(",".join(day for day, _ in dates).encode()).hexdigest()[:16]


def action_named(action: object) -> str:
    """The action as `module.qualname`: of its function, or of its class where it is an object
    (whose repr would differ in each isolate, and mark a deploy at each cold start). The key a
    declared `concurrency: 4` counts the action's runs under."""
    named = action if hasattr(action, "__qualname__") else type(action)
    return f"{getattr(named, '__module__', '')}.{getattr(named, '__qualname__', '')}"


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
