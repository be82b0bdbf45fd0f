"""The SQL toolkit every store builds on: many rows in one statement as JSON, in chunks D1 takes,
and the ids tickwork derives."""

import json
import os
from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")

ROWS_PER_STATEMENT = 200  # D1 takes 100 KB a statement

# D1 takes a string of 2,000,000 bytes at most: rows of any size go in JSON lists of at most this.
JSON_BYTES = 1_000_000


def json_rows(*columns: str) -> str:
    """A CTE `j`: one row per element of the JSON list in ?1, its items named `columns`. The
    statements take many rows at once this way, one statement for all of them."""
    items = ", ".join(f"json_extract(value, '$[{k}]') AS {c}" for k, c in enumerate(columns))
    return f"WITH j AS (SELECT {items} FROM json_each(?1))"


def chunks(items: Sequence[T]) -> list[list[T]]:
    """`items` in lists of at most ROWS_PER_STATEMENT, in order."""
    return [list(items[start : start + ROWS_PER_STATEMENT]) for start in range(0, len(items), ROWS_PER_STATEMENT)]


def json_chunks(rows: Sequence[object]) -> list[str]:
    """`rows` as JSON lists of at most JSON_BYTES each (one row alone may be more)."""
    return [text for text, _ in json_lists(rows)]


def json_lists(rows: Sequence[object], most: int | None = None) -> list[tuple[str, int]]:
    """`json_chunks` (of at most `most` bytes, JSON_BYTES as it is now by default), each with how
    many rows it holds: the first of `rows` in order."""
    most = JSON_BYTES if most is None else most
    found: list[tuple[str, int]] = []
    part: list[str] = []
    size = 2
    for row in rows:
        text = json.dumps(row)
        length = len(text.encode()) + 2
        if part and size + length > most:
            found.append(("[" + ", ".join(part) + "]", len(part)))
            part, size = [], 2
        part.append(text)
        size += length
    return found + ([("[" + ", ".join(part) + "]", len(part))] if part else [])


def number(value: Any) -> int | None:
    """A number D1 answered (an int, or a float where it bound a REAL) as an int; NULL as None."""
    return None if value is None else int(value)


def first(rows: Sequence[T]) -> T | None:
    """The one row a statement that reads at most one answered, or None."""
    return rows[0] if rows else None


def run_id(tick: int) -> str:
    """A run's or skip's id: `z`, then its tick (`tick_at`) in 12 hex digits, then 19 random ones.
    The records' primary key then keeps them in tick order: housekeeping and the history read and
    delete them through it, with no index by tick for D1 to bill on every record (migration 0017)."""
    return f"z{int(tick):012x}{os.urandom(10).hex()[:19]}"


def digest(text: str) -> str:
    """An id worked out from `text`: the same however often the row is written (32 hex digits)."""
    import hashlib  # at first use: a Worker's cold start skips it

    return hashlib.sha256(text.encode()).hexdigest()[:32]
