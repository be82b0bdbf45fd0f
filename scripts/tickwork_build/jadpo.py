"""Reads `.jadpo` declaration files:

    // a comment
    /// documents the declaration below
    schedule chore_census {
        every: 15m
        run: queue_chore_census()
    }

    /// rows of `todos` go 30 days after `created_at`: the hourly schedule `todos.purge`
    purge todos { table: todos  column: created_at  format: epoch_ms  after: 30d }

An item's value runs to the next `key:` or the closing brace, so items may share a line.

A syntax error does not end the file: it is reported, and reading starts again at the next line
that begins a declaration (`schedule`, `calendar`, `pulse` or `purge`, then a name), so every syntax error
is reported and every declaration around them still checked. Such a line also ends a declaration
whose `{` is never closed.
"""

import re
from dataclasses import dataclass

from .declaration import NAME, Declaration, Item
from .problems import Problem

KINDS = ("schedule", "calendar", "pulse", "purge")

SYNTAX = "declaration.syntax_invalid"

_TOKEN = re.compile(
    r"""
    (?P<newline>\n)
  | (?P<space>[ \t\r\f\v]+)
  | (?P<doc>///[^\n]*)
  | (?P<comment>//[^\n]*)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<unclosed>"[^\n]*)
  | (?P<word>%s)
  | (?P<number>[0-9][A-Za-z0-9_.]*)
  | (?P<open>\{) | (?P<close>\}) | (?P<colon>:)
  | (?P<other>.)
    """
    % NAME.pattern,
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


def _tokens(text: str) -> list[_Token]:
    tokens, line = [], 1
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "newline":
            line += 1
        elif kind not in ("space", "comment"):
            tokens.append(_Token(kind, match.group(), line, match.start(), match.end()))
    return tokens


def parse(text: str, file: str, domain: str, module: str) -> tuple[list[Declaration], list[Problem]]:
    """The declarations of one file, and every syntax problem in it."""
    return _Parser(text, file, domain, module).declarations()


class _Parser:
    def __init__(self, text: str, file: str, domain: str, module: str):
        self.text = text
        self.tokens = _tokens(text)
        self.at = 0
        self.file = file
        self.domain = domain
        self.module = module

    def peek(self, ahead: int = 0) -> _Token | None:
        index = self.at + ahead
        return self.tokens[index] if index < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.at]
        if token.kind == "unclosed":
            raise _SyntaxError(token.line, "a string is not closed on its line", 'close it with "')
        self.at += 1
        return token

    def starts_declaration(self, index: int) -> bool:
        """Whether a line begins here with a kind's keyword and a name: where reading resumes."""
        token = self.tokens[index]
        name = self.tokens[index + 1] if index + 1 < len(self.tokens) else None
        first_on_line = index == 0 or self.tokens[index - 1].line < token.line
        keyword = token.kind == "word" and token.text in KINDS
        return first_on_line and keyword and name is not None and name.kind == "word"

    def declarations(self) -> tuple[list[Declaration], list[Problem]]:
        found, problems = [], []
        doc: list[str] = []
        while (token := self.peek()) is not None:
            if token.kind == "doc":
                doc.append(self.take().text[3:].strip())
                continue
            start = self.at
            try:
                found.append(self.declaration("\n".join(doc)))
            except _SyntaxError as error:
                problems.append(Problem(SYNTAX, error.message, error.mend, self.file, error.line))
                self.at = next(
                    (i for i in range(max(self.at, start + 1), len(self.tokens)) if self.starts_declaration(i)),
                    len(self.tokens),
                )
            doc = []
        return found, problems

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
            keyword.text, name.text, self.domain, self.module, self.file, keyword.line, tuple(items), doc
        )

    def items(self, opening: _Token) -> list[Item]:
        items = []
        while True:
            token = self.peek()
            if token is None or self.starts_declaration(self.at):
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

    def joined(self, key: _Token, parts: list[_Token], word: _Token, colon: _Token) -> bool:
        """Whether `word:` is part of a `concurrency:` key named as `api:acme` (no space around its
        colon, on the item's line, and the value's first word or joined to it) rather than the next
        item's key: `concurrency: 4 limit:2m` holds two items, as any other line may."""
        after = self.peek(2)
        return (key.text == "concurrency" and word.line == key.line and word.end == colon.start
                and after is not None and after.start == colon.end and after.kind in ("word", "number")
                and (not parts or parts[-1].end == word.start))

    def value(self, key: _Token) -> str:
        parts: list[_Token] = []
        while (token := self.peek()) is not None:
            if token.kind in ("close", "open") or self.starts_declaration(self.at):
                break
            following = self.peek(1)
            if token.kind == "word" and following is not None and following.kind == "colon" \
                    and not self.joined(key, parts, token, following):
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
