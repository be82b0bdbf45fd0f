"""The old path of the alerts' statements, now `tickwork.store.alerts`: every name it held, for the
code that still imports it from here."""

from .store.alerts import *  # noqa: F403
from .store import alerts as _new

# The old names of statements renamed because another module named other SQL alike; looked up, not
# bound, so each statement has one name (tests/sql/).
_RENAMED = {"RECORD_GAP": "RECORD_ALERTED_GAP"}


def __getattr__(name: str) -> object:
    if name in _RENAMED:
        return getattr(_new, _RENAMED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
