"""Moved to `tickwork.kinds.pulse`; this path is kept for the code and tests that import it."""

from .kinds.pulse import *  # noqa: F401, F403
