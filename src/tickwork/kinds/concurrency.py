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


DECLARED_MEND = ("write `concurrency: 4` (at most 4 runs at once of the action, across its schedules) or "
                 f"`concurrency: api:acme 4` (of a key the app names, shared with items naming it): a limit from 1 "
                 f"to {MOST:,}, after a key of 1 to {LONGEST_KEY} characters where one is named")


def declared_of(text: str) -> tuple[str | None, int]:
    """A declared `concurrency:` as kept: (key, limit), the key None where only a limit is given
    (the action's own key); ScheduleError `schedule.concurrency_invalid` saying what is wrong
    with it otherwise."""
    key, _, limit = text.strip().rpartition(" ")
    key = key.strip().strip("\"'")
    if not limit.isdecimal() or not limit.isascii() or not 1 <= int(limit) <= MOST:
        raise ScheduleError(CODE, f"`concurrency: {reprlib.repr(text)[1:-1]}` does not end in a limit that is a "
                            f"whole number from 1 to {MOST:,}", DECLARED_MEND)
    if not key:
        if text.strip() != limit:
            raise ScheduleError(CODE, f"`concurrency: {reprlib.repr(text)[1:-1]}` names an empty key", DECLARED_MEND)
        return None, int(limit)
    if len(key) > LONGEST_KEY or not key.isprintable():
        raise ScheduleError(CODE, f"the concurrency key {reprlib.repr(key)} is longer than {LONGEST_KEY} characters, "
                            "or holds a control character or line break", DECLARED_MEND)
    return key, int(limit)


def workflow_key(binding: str) -> str:
    """The key a declared `concurrency: 4` of a `workflow:` schedule counts under: its Workflow's,
    as every Workflow schedule shares tickwork's one stand-in action, whose key would hold them all
    to one limit together."""
    return f"workflow:{binding}"


def of_entry(entry: dict[str, Any], action_key: str) -> tuple[str, int] | None:
    """A declared schedule's key and limit from its manifest entry: the key it names, or
    `action_key` (its action, `module.qualname`) where it names none."""
    limit = entry.get("concurrency_limit")
    return None if limit is None else (entry.get("concurrency_key") or action_key, int(limit))
