"""Runs' ends moved to tick/ends.py; its names stay here."""

from .tick.ends import *  # noqa: F401,F403
from .tick.ends import Ends as Ends  # noqa: F401
