"""JSON that an app hands tickwork (a schedule's input, an event's body), as it is kept in D1 and
sent: compact UTF-8 text, keys sorted, measured in the bytes it takes there."""

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

# Nested at most this deep, so every runtime reads it back (Pyodide's stack is shallower than
# CPython's, and a tick reads each due input).
DEEPEST = 100

# Unicode's bidirectional controls, which reorder a line as a terminal shows it (the Arabic
# letter mark, the left-to-right and right-to-left marks, embeddings, overrides and isolates),
# for a regular expression's character class: what a label may not hold, and the command escapes.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"


class NotJSON(ValueError):
    """Why a value cannot be kept as JSON."""


def json_text(value: object) -> tuple[str, int]:
    """`value` as compact JSON text, and its size in UTF-8 bytes; raises NotJSON saying why not."""
    if _deeper_than(value, DEEPEST):
        raise NotJSON(f"it is nested more than {DEEPEST} deep")
    try:
        text = json.dumps(value, sort_keys=True, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError) as error:
        raise NotJSON(str(error)) from None
    if not is_text(text):
        raise NotJSON("a string in it holds a lone surrogate (such as '\\ud800'), which is not Unicode text")
    return text, len(text.encode())


def ascii_json(value: object) -> str:
    """The text `json_text` gave before it kept UTF-8: non-ASCII characters as `\\u` escapes."""
    return json.dumps(value, sort_keys=True, allow_nan=False, separators=(",", ":"))


def is_text(text: str) -> bool:
    """Whether a str is Unicode text, as UTF-8 (and D1) can hold it: no lone surrogates."""
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def _deeper_than(value: object, most: int) -> bool:
    """Whether the lists and dicts in `value` nest more than `most` deep (`[[]]` is 2), found
    without recursing: before it is encoded, since on Pyodide json.dumps of a value thousands
    deep overflows the stack, a fatal error of the interpreter rather than a RecursionError."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            inside: Iterable[object] = item.values()
        elif isinstance(item, (list, tuple)):
            inside = item
        else:
            continue
        if depth > most:
            return True
        pending.extend((child, depth + 1) for child in inside)
    return False
