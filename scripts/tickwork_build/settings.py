"""The settings the build reads, each checked where it is read: `[tool.tickwork]` of
`pyproject.toml`, and `wrangler.toml`'s D1 databases, queues and triggers. A value of the wrong
type or out of range is a problem with its code at the line that writes it, never a traceback."""

import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from .problems import Problem

PYPROJECT, WRANGLER = "pyproject.toml", "wrangler.toml"
LARGEST_RETRIES = 100  # Cloudflare Queues' limit on a consumer's `max_retries`

_HEADER = re.compile(r"\s*(\[\[?)\s*([^\]#]+?)\s*\]\]?")
_KEY = re.compile(r"\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*=")


def _path(dotted: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in re.split(r"\.(?=(?:[^\"']|\"[^\"]*\"|'[^']*')*$)", dotted))


def line_of(text: str, table: tuple[str, ...], key: str | None = None, index: int | None = None) -> int:
    """The line where `key` of `table` (the `index`-th of an array of tables) is written; where it
    is not, the line that makes the nearest table holding it (its header, a dotted key, an inline
    table), or 1. A key inside a multi-line value may be mistaken, which only moves the line."""
    target = (*table, key) if key is not None else table
    current, current_index, counts = (), 0, {}
    nearest, reach = 1, 0  # the line making the longest part of `target` found so far
    for number, line in enumerate(text.splitlines(), start=1):
        header = _HEADER.match(line)
        if header is not None:
            current = _path(header.group(2))
            counts[current] = counts.get(current, -1) + 1
            current_index = counts[current] if header.group(1) == "[[" else 0
            path = current
        elif (written := _KEY.match(line)) is not None:
            path = current + _path(written.group(1))
        else:
            continue
        if index is not None and current[: len(table)] == table and current_index != index:
            continue
        if path == target:
            return number
        common = len(path) if target[: len(path)] == path else 0
        if common > reach:
            nearest, reach = number, common
    return nearest


@dataclass
class Settings:
    """What the build reads of the two files, with the problems of what it could not."""

    pyproject_text: str
    wrangler_text: str
    problems: list[Problem] = field(default_factory=list)
    stops: bool = False  # a problem that leaves no app to read: nothing else is checked

    def problem(self, code: str, message: str, mend: str, file: str, table: tuple[str, ...],
                key: str | None = None, index: int | None = None, stops: bool = False) -> None:
        text = self.pyproject_text if file == PYPROJECT else self.wrangler_text
        self.problems.append(Problem(code, message, mend, file, line_of(text, table, key, index)))
        self.stops = self.stops or stops


def _shown(value: object) -> str:
    """A value as TOML writes it, a long or deep one cut short."""
    text = _toml(value, 3)
    return text if len(text) <= 40 else f"{text[:30]}... ({type(value).__name__})"


def _toml(value: object, depth: int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, dict)) and not depth:
        return "[...]" if isinstance(value, list) else "{...}"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(item, depth - 1) for item in value[:5]) + (", ...]" if value[5:] else "]")
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {_toml(item, depth - 1)}" for key, item in list(value.items())[:5]) + " }"
    return value.isoformat() if hasattr(value, "isoformat") else repr(value)  # dates and times, numbers


def tickwork_table(settings: Settings, pyproject: dict) -> dict:
    """`[tool.tickwork]`, or {} with a problem where `tool` or `tool.tickwork` is not a table."""
    tool = pyproject.get("tool", {})
    if not isinstance(tool, dict):
        settings.problem("settings.tickwork_invalid", f"`tool = {_shown(tool)}` is not a table",
                         "make `tool` a table: write the settings under `[tool.tickwork]`",
                         PYPROJECT, (), "tool", stops=True)
        return {}
    tickwork = tool.get("tickwork", {})
    if not isinstance(tickwork, dict):
        settings.problem("settings.tickwork_invalid", f"`tool.tickwork = {_shown(tickwork)}` is not a table",
                         'write the settings as a table: `[tool.tickwork]` then e.g. `app = "src/app"`',
                         PYPROJECT, ("tool",), "tickwork", stops=True)
        return {}
    return tickwork


# `source` and `app`: each one's value where it is not written, and how to write it.
_DIRECTORIES = {
    "source": ("src", 'name the directory of the Worker\'s code, entry.py at its top: `source = "src"`'),
    "app": ("src/app", 'name the app package\'s directory under `source`, its domains under it: `app = "src/app"`'),
}


def directories(settings: Settings, root: Path, tickwork: dict) -> tuple[Path, Path]:
    """The Worker's code (`source`) and the app package (`app`), where both are strings."""
    found = []
    for key, (default, mend) in _DIRECTORIES.items():
        value = tickwork.get(key, default)
        if not isinstance(value, str) or not value or "\0" in value:
            settings.problem(f"settings.{key}_invalid", f"`{key} = {_shown(value)}` is not a directory's name",
                             mend, PYPROJECT, ("tool", "tickwork"), key, stops=True)
            value = default
        found.append((root / value).resolve())
    return found[0], found[1]


def directory_problems(root: Path, worker_root: Path, app: Path) -> list[Problem]:
    """Where `source` is not a directory, or `app` not one under it that the Worker can import."""
    text = (root / PYPROJECT).read_text(encoding="utf-8")
    tool = tomllib.loads(text).get("tool", {})
    written = tool.get("tickwork", {}) if isinstance(tool, dict) else {}
    problems = []

    def problem(key: str, what: str) -> None:
        default, mend = _DIRECTORIES[key]
        said = f"`{key} = {_shown(written[key])}`" if key in written else f"`{key}`, not written, is `{default}`: it"
        problems.append(Problem(f"settings.{key}_invalid", f"{said} is not {what}", mend,
                                PYPROJECT, line_of(text, ("tool", "tickwork"), key)))

    if not worker_root.is_dir():
        problem("source", "a directory of the project")
    if not app.is_dir():
        problem("app", "a directory of the project")
    parts = app.relative_to(worker_root).parts if app.is_relative_to(worker_root) else ()
    if not problems and not (parts and all(part.isidentifier() for part in parts)):
        problem("app", "a package under `source` whose path parts are Python names, which the Worker can import")
    return problems


def store(settings: Settings, tickwork: dict) -> str | None:
    value = tickwork.get("store")
    if value is None or isinstance(value, str):
        return value
    settings.problem("settings.store_invalid", f"`store = {_shown(value)}` is not a string",
                     'name the D1 binding (or database_name) that keeps schedule state: `store = "DB"`',
                     PYPROJECT, ("tool", "tickwork"), "store")
    return None


# The keys of a D1 database the build reads, each with how to write it.
_D1_MENDS = {
    "binding": 'name the binding the Worker reads it by: `binding = "DB"`',
    "database_name": 'write the database\'s name: `database_name = "tickwork"`',
    "migrations_dir": 'name the directory of its migrations: `migrations_dir = "migrations"`',
}


def d1_bindings(settings: Settings, wrangler: dict) -> tuple[dict, ...]:
    """`[[d1_databases]]` that name a binding; each key the build reads checked for its type."""
    databases = wrangler.get("d1_databases", [])
    mend = 'write each as [[d1_databases]] with binding = "DB", database_name and database_id'
    if not isinstance(databases, list):
        settings.problem("settings.d1_databases_invalid", f"`d1_databases = {_shown(databases)}` is not "
                         "an array of tables", mend, WRANGLER, (), "d1_databases")
        return ()
    found = []
    for index, database in enumerate(databases):
        if not isinstance(database, dict):
            settings.problem("settings.d1_databases_invalid", f"`d1_databases` holds {_shown(database)}, "
                             "not a table", mend, WRANGLER, (), "d1_databases")
            continue
        wrong = [key for key in _D1_MENDS if key in database and not (isinstance(database[key], str) and database[key])]
        for key in wrong:
            settings.problem("settings.d1_databases_invalid",
                             f"`{key} = {_shown(database[key])}` of a D1 database is not a string", _D1_MENDS[key],
                             WRANGLER, ("d1_databases",), key, index)
        if "binding" not in database:
            settings.problem("settings.d1_databases_invalid", "a D1 database has no `binding`",
                             _D1_MENDS["binding"], WRANGLER, ("d1_databases",), None, index)
        elif "binding" not in wrong:  # kept with the rest wrong, so the store still resolves
            found.append(database)
    return tuple(found)


def queues(settings: Settings, wrangler: dict, kind: str, *keys: str) -> tuple[dict, ...]:
    """`[[queues.<kind>]]` that name what they must (`keys`, strings); a consumer's
    `max_retries`, where it is written, a whole number from 0 to 100."""
    mend = f"write each as [[queues.{kind}]] with " + " and ".join(f'{key} = "..."' for key in keys)
    tables = wrangler.get("queues", {})
    if not isinstance(tables, dict):
        if kind == "producers":  # said once, not once a kind
            settings.problem("settings.queues_invalid", f"`queues = {_shown(tables)}` is not a table",
                             mend, WRANGLER, (), "queues")
        return ()
    entries = tables.get(kind, [])
    if not isinstance(entries, list):
        settings.problem("settings.queues_invalid", f"`queues.{kind} = {_shown(entries)}` is not an array "
                         "of tables", mend, WRANGLER, ("queues",), kind)
        return ()
    found = []
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            settings.problem("settings.queues_invalid", f"`queues.{kind}` holds {_shown(entry)}, not a table",
                             mend, WRANGLER, ("queues",), kind)
            continue
        wrong = [key for key in keys if not (isinstance(entry.get(key), str) and entry[key])]
        for key in wrong:
            said = f"`{key} = {_shown(entry[key])}`, not a string" if key in entry else f"no `{key}`"
            settings.problem("settings.queues_invalid", f"a queue {kind.removesuffix('s')} has {said}", mend,
                             WRANGLER, ("queues", kind), key if key in entry else None, index)
        if kind == "consumers" and not _retries(entry.get("max_retries", 3)):
            settings.problem("settings.max_retries_invalid",
                             f"`max_retries = {_shown(entry['max_retries'])}` is not a whole number from 0 to "
                             f"{LARGEST_RETRIES}", "write how many times a message is retried, at most "
                             f"{LARGEST_RETRIES} (Cloudflare's limit): `max_retries = 3`",
                             WRANGLER, ("queues", kind), "max_retries", index)
            entry = {key: value for key, value in entry.items() if key != "max_retries"}
        if not wrong:
            found.append(entry)
    return tuple(found)


def _retries(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= LARGEST_RETRIES
