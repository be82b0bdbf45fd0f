"""Moved to `tickwork.kinds.zones`; this path is kept for the code and tests that import it."""

from .kinds.zones import *  # noqa: F401, F403
