"""Reading a schedule's `retry:` and `limit:` as written, for the build and for `items.*`:
`retry: 3 after 1m` (three attempts more, the first a minute after the failure, each pause twice
the one before) and `limit: 2m` (the run is stopped there, within the 15-minute run limit)."""

import re

from .model import RUN_LIMIT, Retry
from .times import LONGEST, MINUTE, SECOND, duration_ms, whole

MOST_ATTEMPTS = 10
SHORTEST_PAUSE = 10 * SECOND  # a Worker with queues bound ticks again at each 10-second mark

_RETRY = re.compile(r"\s*([0-9]+)\s+after\s+(\S+)\s*")


class Refused(ValueError):
    """A `retry:` or `limit:` the Worker cannot honour: its documented code, and how to mend it."""

    def __init__(self, code: str, message: str, mend: str):
        super().__init__(message)
        self.code, self.message, self.mend = code, message, mend


def retry_of(text: str, queues: bool) -> Retry:
    """`N after D` as a Retry; pauses under a minute only where the app has queues bound."""
    code, said = "schedule.retry_invalid", f"`retry: {text}`"
    match = _RETRY.fullmatch(text)
    attempts = whole(match.group(1)) if match else None
    pause = duration_ms(match.group(2)) if match else None
    if attempts is None or pause is None:
        raise Refused(code, f"{said} is not a number of attempts more and the first pause",
                      "write e.g. `retry: 3 after 1m`: three attempts more, after 1m, 2m and 4m")
    if not 1 <= attempts <= MOST_ATTEMPTS:
        raise Refused(code, f"{said} asks for {attempts} attempts more", f"ask for 1 to {MOST_ATTEMPTS}")
    if pause * 2 ** (attempts - 1) > LONGEST:
        raise Refused(code, f"{said}: its last pause is longer than a hundred years", "ask for fewer attempts or a shorter pause")
    if pause < SHORTEST_PAUSE or (pause < MINUTE and not queues):
        ticks = "each 10-second mark" if queues else "once a minute (each 10-second mark with queues bound)"
        raise Refused("deployable.target_unsupported", f"{said} pauses under {'10 seconds' if queues else 'a minute'}; "
                      f"a Worker ticks {ticks}", "pause at least 1m, or 10s with queues bound")
    return Retry(attempts, pause)


def limit_of(text: str) -> int:
    """`limit: 2m` in ms: at most the run limit of 15 minutes."""
    ms = duration_ms(text.strip())
    if ms is None or ms > RUN_LIMIT:
        raise Refused("schedule.limit_invalid", f"`limit: {text}` is not a duration up to 15m",
                      "write e.g. `limit: 2m`; a run is stopped at 15 minutes whatever its limit")
    return ms
