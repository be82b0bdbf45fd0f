"""The tables an app's own migrations make: every `.sql` file of a D1 binding's `migrations_dir`
applied in order to a scratch in-memory SQLite database, as `wrangler d1 migrations apply` would
apply them to D1, then read back with `PRAGMA table_info`."""

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from .problems import Problem
from .project import Project

DEFAULT_DIRECTORY = "migrations"  # wrangler's, where a binding names no `migrations_dir`


@dataclass(frozen=True)
class Schema:
    """One D1 database as its migrations leave it: each table's columns and their declared types."""

    binding: str
    directory: str  # relative to the project, as messages show it
    tables: dict[str, dict[str, str]] = field(default_factory=dict)  # table: {column: declared type}
    problems: list[Problem] = field(default_factory=list)  # a migration that fails: nothing is known
    unread: bool = False  # its `migrations_dir` is not a string (a settings problem): nothing is known

    def table(self, name: str) -> str | None:
        """The table as its migration spells it, matched as SQLite matches names, regardless of case."""
        return next((table for table in self.tables if table.lower() == name.lower()), None)

    def column(self, table: str, name: str) -> str | None:
        return next((column for column in self.tables[table] if column.lower() == name.lower()), None)


def schema_of(project: Project, binding: dict) -> Schema:
    """The tables `binding`'s migrations make, or, where one fails on SQLite, that problem."""
    if not isinstance(binding.get("migrations_dir", DEFAULT_DIRECTORY), str) or not binding.get("migrations_dir", 1):
        return Schema(binding["binding"], "", unread=True)
    directory = project.root / binding.get("migrations_dir", DEFAULT_DIRECTORY)
    shown = project.relative(directory)
    connection = sqlite3.connect(":memory:")
    try:
        for path in _in_order(directory):
            failed = _apply(connection, path)
            if failed is not None:
                line, error = failed
                return Schema(binding["binding"], shown, problems=[Problem(
                    "purge.migrations_invalid",
                    f"this statement fails on a scratch SQLite database: {error}; "
                    "the build applies the migrations to check a purge's table and column",
                    "fix the statement: `wrangler d1 migrations apply` would fail on it too",
                    project.relative(path), line,
                )])
        names = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        tables = {
            name: {row[1]: row[2] for row in connection.execute(f'PRAGMA table_info("{_quoted(name)}")')}
            for name in names
        }
        return Schema(binding["binding"], shown, tables)
    finally:
        connection.close()


def _in_order(directory: Path) -> list[Path]:
    """The `.sql` files by their number (`0002_x.sql` before `0010_y.sql`), as wrangler orders them."""
    if not directory.is_dir():
        return []
    def number(path: Path) -> tuple[int, str]:
        digits = re.match(r"[0-9]+", path.name)
        return (int(digits.group()) if digits else 0, path.name)
    return sorted(directory.glob("*.sql"), key=number)


def _apply(connection: sqlite3.Connection, path: Path) -> tuple[int, str] | None:
    """Runs the file statement by statement; the first that fails, by its first line, and why."""
    pending, start = "", 1
    for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), start=1):
        if _only_comments(pending):  # a statement starts at its first line that is not a comment
            pending, start = "", number
        pending += line + "\n"
        if sqlite3.complete_statement(pending):
            try:
                connection.executescript(pending)
            except sqlite3.Error as error:
                return start, str(error)
            pending = ""
    if not _only_comments(pending):  # a last statement without its `;`
        try:
            connection.executescript(pending)
        except sqlite3.Error as error:
            return start, str(error)
    return None


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.strip().startswith("--") for line in text.splitlines())


def _quoted(name: str) -> str:
    return name.replace('"', '""')
