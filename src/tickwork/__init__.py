"""tickwork: dependable schedules on Cloudflare's Python Workers.

The core takes `now` as an argument and never imports `js`, `pyodide` or `workers`;
`tickwork.adapters` holds the two places that meet a host.
"""

from .consumers import consumer
from .context import call, clock, env, handled, items, on_success, wait_until
from .declare import calendar, pulse, purge, schedule
from .events import EventError, event
from .model import ActionError, Schedule, ScheduleError

__all__ = [
    "ActionError", "EventError", "Schedule", "ScheduleError", "calendar", "call", "clock", "consumer",
    "env", "event", "handled", "items", "on_success", "pulse", "purge", "schedule", "wait_until",
]
