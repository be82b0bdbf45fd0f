"""Moved to `tickwork.kinds.once`; this path is kept for the code and tests that import it."""

from .kinds.once import *  # noqa: F401, F403
