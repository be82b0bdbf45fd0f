"""The health route moved to tickwork.operating.health; this path keeps working (the tick and
adapters.workers.health_of import it)."""

from .operating.health import *  # noqa: F403
from .operating.health import TICKS_STOPPED_AFTER as TICKS_STOPPED_AFTER  # noqa: F401
from .operating.health import health as health  # noqa: F401
