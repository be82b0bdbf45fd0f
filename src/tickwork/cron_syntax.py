"""Moved to `tickwork.kinds.cron_syntax`; this path is kept for the code and tests that import it."""

from .kinds.cron_syntax import *  # noqa: F401, F403
