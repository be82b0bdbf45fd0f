"""The operator's words moved to tickwork.operating.words; this path keeps working for the code and
the apps that import it."""

from .operating.words import *  # noqa: F403
from .operating.words import _BIDI, _CONTROLS, _JSON_RAW, _UNITS, _escape  # noqa: F401
