"""wrangler.json and wrangler.jsonc: JSON with `//` and `/* */` comments and trailing commas,
read with where each value is, and edited in place so the file keeps its comments and layout.

`strip` blanks the comments and trailing commas outside strings (newlines kept, so every
offset and line stays the one of the file); `parse` reads the result, noting each value's
span by its path (keys and array indexes), which the build's lines and the edits use.
"""

import json
from dataclasses import dataclass

_SCALAR = json.JSONDecoder()


class JsoncError(ValueError):
    def __init__(self, message: str, line: int):
        super().__init__(f"line {line}: {message}")
        self.reason, self.line = message, line


@dataclass(frozen=True)
class Span:
    line: int  # the line of its key (an array item's own line)
    start: int  # the value's first character
    end: int  # past its last one


def _blank(text: str) -> str:
    return "".join(char if char == "\n" else " " for char in text)


def strip(text: str, commas: bool = True) -> str:
    """The text with its comments (and trailing commas, unless `commas` is false) blanked,
    strings untouched."""
    out, at, comma = [], 0, None  # comma: where the last comma outside strings is in `out`
    while at < len(text):
        char = text[at]
        if char == '"':
            end = at + 1
            while end < len(text) and text[end] not in '"\n':
                end += 2 if text[end] == "\\" else 1
            out.append(text[at:end + 1])
            at, comma = end + 1, None
        elif text.startswith("//", at):
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            out.append(_blank(text[at:end]))
            at = end
        elif text.startswith("/*", at):
            end = text.find("*/", at + 2)
            if end < 0:
                raise JsoncError("a /* comment is not closed", text.count("\n", 0, at) + 1)
            out.append(_blank(text[at:end + 2]))
            at = end + 2
        else:
            if char in "]}" and comma is not None and commas:
                out[comma] = " "
            if not char.isspace():
                comma = len(out) if char == "," else None
            out.append(char)
            at += 1
    return "".join(out)


def parse(text: str) -> tuple[object, dict[tuple, Span]]:
    """The value the file holds, and each value's span by its path; JsoncError with its line."""
    plain = strip(text)
    spans: dict[tuple, Span] = {}

    def line(at: int) -> int:
        return plain.count("\n", 0, at) + 1

    def skip(at: int) -> int:
        while at < len(plain) and plain[at].isspace():
            at += 1
        return at

    def fail(message: str, at: int):
        raise JsoncError(message, line(min(at, len(plain))))

    def value(at: int, path: tuple, key_line: int) -> tuple[object, int]:
        at = skip(at)
        if at >= len(plain):
            fail("the file ends where a value should be", at)
        start, char = at, plain[at]
        if char in "{[":
            close, found = ("}", {}) if char == "{" else ("]", [])
            at = skip(at + 1)
            while plain[at:at + 1] != close:
                if char == "{":
                    if plain[at:at + 1] != '"':
                        fail("a key (a string in double quotes) should be here", at)
                    key, at = _scalar(plain, at, fail)
                    at = skip(at)
                    if plain[at:at + 1] != ":":
                        fail(f'":" should follow the key "{key}"', at)
                    found[key], at = value(at + 1, (*path, key), line(at))
                else:
                    item_at = skip(at)
                    item, at = value(item_at, (*path, len(found)), line(item_at))
                    found.append(item)
                at = skip(at)
                if plain[at:at + 1] == ",":
                    at = skip(at + 1)
                    if plain[at:at + 1] == close:
                        fail('a value should follow "," (two commas?)', at)
                elif plain[at:at + 1] != close:
                    fail(f'"," or "{close}" should be here', at)
            at += 1
        else:
            found, at = _scalar(plain, at, fail)
        spans[path] = Span(key_line, start, at)
        return found, at

    read, end = value(0, (), 1)
    if skip(end) < len(plain):
        fail("more follows the configuration's closing brace", skip(end))
    return read, spans


def _scalar(plain: str, at: int, fail) -> tuple[object, int]:
    try:
        return _SCALAR.raw_decode(plain, at)
    except json.JSONDecodeError as error:
        fail(error.msg.lower(), error.pos)


def loads(text: str) -> object:
    return parse(text)[0]


def line_of(text: str, table: tuple[str, ...], key: str | None = None, index: int | None = None) -> int:
    """As settings.line_of for TOML: the line of `key` of `table` (its `index`-th item where
    `table` is an array), else the nearest value holding it, else 1."""
    path = (*table, *(() if index is None else (index,)), *(() if key is None else (key,)))
    try:
        spans = parse(text)[1]
    except JsoncError as error:
        return error.line
    while path and path not in spans:
        path = path[:-1]
    return spans[path].line if path else 1


def _line_end(text: str, at: int) -> int:
    end = text.find("\n", at)
    return len(text) if end < 0 else end


def set_value(text: str, path: tuple, value: object) -> str:
    """The text with the value at `path` (which is there) written as `value`."""
    span = parse(text)[1][path]
    return text[:span.start] + json.dumps(value) + text[span.end:]


def add_member(text: str, path: tuple, key: str, value: object) -> str:
    """The text with `"key": value` last in the object at `path`, on a line of its own (at its
    members' indentation) where they are each on one; the comments around them kept."""
    return _append(text, path, f"{json.dumps(key)}: {_dumped(value)}")


def add_item(text: str, path: tuple, value: object) -> str:
    """The text with `value` last in the array at `path`."""
    return _append(text, path, json.dumps(value))


def _dumped(value: object) -> str:
    """A value on one line: `{ "crons": ["* * * * *"] }`."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)}: {_dumped(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def _append(text: str, path: tuple, written: str) -> str:
    read, spans = parse(text)
    plain, container = strip(text), read
    for part in path:
        container = container[part]
    opened = spans[path].start + 1
    keys = container if isinstance(container, dict) else range(len(container))
    children = [spans[(*path, key)] for key in keys]
    if not children:
        return text[:opened] + (f" {written} " if isinstance(container, dict) else written) + text[opened:]
    last = children[-1]
    comma = "" if strip(text, commas=False)[last.end:].lstrip().startswith(",") else ","
    end = _line_end(plain, last.end)
    own_lines = "\n" in plain[opened:children[0].start] and not plain[last.end:end].replace(",", "").strip()
    if not own_lines:
        return text[:last.end] + f", {written}" + text[last.end:] if comma else \
            text[:last.end] + text[last.end:].replace(",", f", {written},", 1)
    start = _line_start(text, last.line)
    indent = text[start:start + len(text[start:]) - len(text[start:].lstrip(" \t"))]
    return text[:last.end] + comma + text[last.end:end] + f"\n{indent}{written}" + text[end:]


def _line_start(text: str, line: int) -> int:
    at = 0
    for _ in range(line - 1):
        at = text.index("\n", at) + 1
    return at
