"""tickwork: dependable schedules on Cloudflare's Python Workers.

The core takes `now` as an argument and never imports `js`, `pyodide` or `workers`;
`tickwork.adapters` holds the two places that meet a host.
"""

import importlib

# Each public name is imported from its module at first use (PEP 562), so that a Worker's cold
# start loads only what the app reads: `from tickwork import schedule` never loads the outbox.
_HOMES = {
    "ActionError": "model", "Schedule": "model", "ScheduleError": "model",
    "EventError": "events", "event": "events",
    "calendar": "declare", "consumer": "declare", "pulse": "declare", "purge": "declare", "schedule": "declare",
    **{name: "context" for name in ("call", "clock", "env", "handled", "items", "on_success", "wait_until")},
}

__all__ = sorted(_HOMES)


def __getattr__(name: str):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'tickwork' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{home}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
