"""tickwork: dependable schedules on Cloudflare's Python Workers.

The core takes `now` as an argument and never imports `js`, `pyodide` or `workers`;
`tickwork.adapters` holds the two places that meet a host.
"""

from .clock import clock
from .declare import schedule
from .model import ActionError, Schedule

__all__ = ["ActionError", "Schedule", "clock", "schedule"]
