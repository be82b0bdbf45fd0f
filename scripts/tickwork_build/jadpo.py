"""Reads `.jadpo` declaration files:

    // a comment
    /// documents the declaration below
    schedule chore_census {
        every: 15m
        run: queue_chore_census()
    }

An item's value runs to the next `key:` or the closing brace, so items may share a line.
"""

import re
from dataclasses import dataclass

from .declaration import Declaration, Item
from .problems import Problem

KINDS = ("schedule", "calendar", "pulse")

SYNTAX = "declaration.syntax_invalid"

_TOKEN = re.compile(
    r"""
    (?P<newline>\n)
  | (?P<space>[ \t\r\f\v]+)
  | (?P<doc>///[^\n]*)
  | (?P<comment>//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
  | (?P<number>[0-9][A-Za-z0-9_.]*)
  | (?P<open>\{) | (?P<close>\}) | (?P<colon>:)
  | (?P<other>.)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    line: int
    start: int
    end: int


class _SyntaxError(Exception):
    def __init__(self, line: int, message: str, mend: str):
        self.line, self.message, self.mend = line, message, mend


def _tokens(text: str):
    line = 1
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "newline":
            line += 1
        elif kind == "other" and match.group() == '"':
            raise _SyntaxError(line, "a string is not closed on its line", 'close it with "')
        elif kind not in ("space", "comment"):
            yield _Token(kind, match.group(), line, match.start(), match.end())


def parse(text: str, file: str, domain: str) -> tuple[list[Declaration], list[Problem]]:
    """The declarations of one file, or the first syntax problem in it."""
    try:
        return _Parser(text, file, domain).declarations(), []
    except _SyntaxError as error:
        return [], [Problem(SYNTAX, error.message, error.mend, file, error.line)]


class _Parser:
    def __init__(self, text: str, file: str, domain: str):
        self.text = text
        self.tokens = list(_tokens(text))
        self.at = 0
        self.file = file
        self.domain = domain

    def peek(self, ahead: int = 0) -> _Token | None:
        index = self.at + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def declarations(self) -> list[Declaration]:
        found = []
        doc: list[str] = []
        while (token := self.peek()) is not None:
            if token.kind == "doc":
                doc.append(self.take().text[3:].strip())
                continue
            found.append(self.declaration("\n".join(doc)))
            doc = []
        return found

    def declaration(self, doc: str) -> Declaration:
        keyword = self.take()
        if keyword.kind != "word" or keyword.text not in KINDS:
            raise _SyntaxError(
                keyword.line,
                f"unknown declaration `{keyword.text}`",
                f"start each declaration with one of: {', '.join(KINDS)}",
            )
        name = self.peek()
        if name is None or name.kind != "word":
            raise _SyntaxError(
                keyword.line,
                f"`{keyword.text}` is not followed by a name",
                f"write `{keyword.text} NAME {{ ... }}`",
            )
        self.take()
        opening = self.peek()
        if opening is None or opening.kind != "open":
            raise _SyntaxError(
                name.line,
                f"`{keyword.text} {name.text}` is not followed by `{{`",
                f"write `{keyword.text} {name.text} {{ ... }}`",
            )
        self.take()
        items = self.items(opening)
        return Declaration(
            keyword.text, name.text, self.domain, self.file, keyword.line, tuple(items), doc
        )

    def items(self, opening: _Token) -> list[Item]:
        items = []
        while True:
            token = self.peek()
            if token is None:
                raise _SyntaxError(
                    opening.line, "this `{` is never closed", "add the missing `}`"
                )
            if token.kind == "close":
                self.take()
                return items
            if token.kind == "doc":
                self.take()
                continue
            key = self.take()
            colon = self.peek()
            if key.kind != "word" or colon is None or colon.kind != "colon":
                raise _SyntaxError(
                    key.line,
                    f"expected `key: value`, found `{key.text}`",
                    "write each item as `key: value`, e.g. `every: 15m`",
                )
            self.take()
            items.append(Item(key.text, self.value(key), key.line))

    def value(self, key: _Token) -> str:
        parts: list[_Token] = []
        while (token := self.peek()) is not None:
            if token.kind in ("close", "open"):
                break
            following = self.peek(1)
            if token.kind == "word" and following is not None and following.kind == "colon":
                break
            if token.kind != "doc":
                parts.append(token)
            self.take()
        if token is not None and token.kind == "open":
            raise _SyntaxError(
                token.line, f"unexpected `{{` in the value of `{key.text}`", "remove the `{`"
            )
        if not parts:
            return ""
        return self.text[parts[0].start : parts[-1].end]
