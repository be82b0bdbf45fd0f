"""Moved to `tickwork.kinds`; this path is kept for the code and tests that import it."""

from .kinds import COUNTED as COUNTED
from .kinds import Call as Call
from .kinds import Covered as Covered
from .kinds import Owing as Owing
from .kinds import Timing as Timing
