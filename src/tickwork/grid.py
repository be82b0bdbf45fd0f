"""Moved to `tickwork.kinds.every`; this path is kept for the code and tests that import it."""

from .kinds.every import *  # noqa: F401, F403
