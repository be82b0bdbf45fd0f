"""A declaration as written, before validation: from a `.jadpo` file or from Python."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Item:
    key: str
    value: str  # the text as written, e.g. "15m" or "queue_chore_census()"
    line: int


@dataclass(frozen=True)
class Declaration:
    kind: str  # "schedule"
    name: str
    domain: str
    file: str  # relative to the project
    line: int
    items: tuple[Item, ...] = field(default=())
    doc: str = ""
