"""Declaring schedules in Python: the same declaration a `.jadpo` file makes.

    from tickwork import schedule

    @schedule(every="1h")
    async def tidy_up(): ...

is `schedule tidy_up { every: 1h  run: tidy_up() }` in the function's domain. The decorator only
notes the declaration on the function; `tickwork build` validates it with the `.jadpo` ones.
"""

import sys
from dataclasses import dataclass

DECLARATIONS = "__tickwork_declarations__"


@dataclass(frozen=True)
class Declared:
    kind: str
    name: str
    items: dict[str, str]
    file: str
    line: int


def schedule(*, every: str, name: str | None = None):
    caller = sys._getframe(1)
    file, line = caller.f_code.co_filename, caller.f_lineno

    def declare(action):
        items = {"every": every, "run": f"{action.__name__}()"}
        declared = Declared("schedule", name or action.__name__, items, file, line)
        action.__dict__.setdefault(DECLARATIONS, []).append(declared)
        return action

    return declare
