"""A declaration as written, before validation: from a `.jadpo` file or from Python."""

import re
from dataclasses import dataclass, field

# A schedule's name, as a `.jadpo` file writes it and a decorator's `name=` must give it.
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


@dataclass(frozen=True)
class Item:
    key: str
    value: str  # the text as written, e.g. "15m" or "queue_chore_census()"
    line: int


@dataclass(frozen=True)
class Declaration:
    kind: str  # "schedule", "calendar", "pulse" or "purge"
    name: str
    domain: str
    module: str  # where `run:` finds its action: the domain's module, or a decorator's own (a purge's: where declared)
    file: str  # relative to the project
    line: int
    items: tuple[Item, ...] = field(default=())
    doc: str = ""
