"""The old path of backfills' statements, now `tickwork.store.backfills`: every name it held, for the
code that still imports it from here."""

from .store.backfills import *  # noqa: F403
from .store import backfills as _new

# The old names of statements renamed because another module named other SQL alike; looked up, not
# bound, so each statement has one name (tests/sql/).
_RENAMED = {"CLAIMS": "STEPS", "TAKE_LEASES": "TAKE_BACKFILL_LEASES", "RECORD_STARTS": "RECORD_BACKFILL_STARTS"}


def __getattr__(name: str) -> object:
    if name in _RENAMED:
        return getattr(_new, _RENAMED[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
