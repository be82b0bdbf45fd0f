"""The old path of housekeeping's statements, now `tickwork.store.housekeeping`: every name it held, for the
code that still imports it from here."""

from .store.housekeeping import *  # noqa: F403
from .store import housekeeping as _new

# The old names of statements renamed because another module named other SQL alike; looked up, not
# bound, so each statement has one name (tests/sql/).
_RENAMED = {"SET_ASIDE": "SET_ASIDE_PAST_RETENTION"}


def __getattr__(name: str) -> object:
    if name in _RENAMED:
        return getattr(_new, _RENAMED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
