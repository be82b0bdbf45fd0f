"""The old path of the outbox's statements, now `tickwork.store.outbox`: every name it held, for the
code that still imports it from here."""

from .store.outbox import *  # noqa: F403
from .store import outbox as _new

# The old names of statements renamed because another module named other SQL alike; looked up, not
# bound, so each statement has one name (tests/sql/).
_RENAMED = {"SELECT_DELIVERIES": "SELECT_DELIVERIES_WITH_EVENTS"}


def __getattr__(name: str) -> object:
    if name in _RENAMED:
        return getattr(_new, _RENAMED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
