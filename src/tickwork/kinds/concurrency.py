"""Concurrency per key: at most K runs at once of the schedules that name one key, across racing
ticks. The key and its limit are kept on each schedule's row (migration 0029); the claim counts
the key's runs under way in the statement that takes the leases (store.claims.TAKE_LEASES_LIMITED),
so a run beyond the limit is neither leased nor skipped: it stays due, owed, for a later tick."""

import reprlib
from typing import Any

from ..errors import ScheduleError

CODE = "schedule.concurrency_invalid"
LONGEST_KEY = 200  # characters: a key is a name, e.g. `api:acme`
MOST = 10_000  # runs at once: more than any tick makes, so a larger limit is a mistake

MEND = (f"give `concurrency=(key, limit)`: a key of 1 to {LONGEST_KEY} characters of text, e.g. \"api:acme\", and "
        f"a limit that is a whole number from 1 to {MOST:,}, e.g. `concurrency=(\"api:acme\", 4)`")


def concurrency_of(value: object) -> tuple[str, int]:
    """A `concurrency=` argument as kept: (key, limit); ScheduleError `schedule.concurrency_invalid`
    saying what is wrong with it otherwise."""
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise ScheduleError(CODE, f"concurrency {reprlib.repr(value)} is not a pair (key, limit)", MEND)
    key, limit = value
    if not isinstance(key, str):
        raise ScheduleError(CODE, f"the concurrency key {reprlib.repr(key)} is not text", MEND)
    if not key.strip() or len(key) > LONGEST_KEY or not key.isprintable():
        raise ScheduleError(CODE, f"the concurrency key {reprlib.repr(key)} is empty, longer than {LONGEST_KEY} "
                            "characters, or holds a control character or line break", MEND)
    if type(limit) is not int or not 1 <= limit <= MOST:
        raise ScheduleError(CODE, f"the concurrency limit {reprlib.repr(limit)} of `{key}` is not a whole number "
                            f"from 1 to {MOST:,}", MEND)
    return key, limit


def entry_of(concurrency: object) -> dict[str, list[object]]:
    """What a hand-over's entry keeps of `concurrency=` where given: an entry without it, and so
    its id, is as before."""
    return {} if concurrency is None else {"concurrency": list(concurrency_of(concurrency))}


def limit_columns(entry: dict[str, Any]) -> dict[str, Any]:
    """The row's columns of an entry's concurrency key and limit, for the claim to count by."""
    key, limit = entry.get("concurrency") or (None, None)
    return {"concurrency_key": key, "concurrency_limit": limit}
