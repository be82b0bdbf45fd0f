"""tickwork: dependable schedules on Cloudflare's Python Workers.

The core takes `now` as an argument and never imports `js`, `pyodide` or `workers`;
`tickwork.adapters` holds the two places that meet a host.
"""

from .context import call, clock, items
from .declare import calendar, pulse, schedule
from .model import ActionError, Schedule, ScheduleError

__all__ = ["ActionError", "Schedule", "ScheduleError", "calendar", "call", "clock", "items", "pulse", "schedule"]
