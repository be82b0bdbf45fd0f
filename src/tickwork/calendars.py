"""Moved to `tickwork.kinds.calendar`; this path is kept for the code and tests that import it."""

from .kinds.calendar import *  # noqa: F401, F403
from .kinds.forms import VIXIE_DAYS as VIXIE_DAYS  # defined here before; kinds.calendar only uses it
