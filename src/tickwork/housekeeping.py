"""Housekeeping moved to tick/housekeeping.py, the tick's last step; its names stay here."""

from .tick.housekeeping import *  # noqa: F401,F403
from .tick.housekeeping import (  # noqa: F401
    EVENTS_KEPT as EVENTS_KEPT, HANDLED_KEPT as HANDLED_KEPT, MOST_DELETES as MOST_DELETES, RETENTION as RETENTION,
    housekeeping as housekeeping,
)
