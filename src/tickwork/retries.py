"""Moved to `tickwork.kinds.rules`; this path is kept for the code and tests that import it."""

from .kinds.rules import MOST_ATTEMPTS as MOST_ATTEMPTS
from .kinds.rules import SHORTEST_PAUSE as SHORTEST_PAUSE
from .kinds.rules import Refused as Refused
from .kinds.rules import limit_of as limit_of
from .kinds.rules import retry_of as retry_of
