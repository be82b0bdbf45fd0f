"""Validates purge declarations and turns each into its hourly schedule.

    purge todos { table: todos  column: created_at  format: epoch_ms  after: 30d }

says that rows of the app's own table `todos` whose `created_at` is more than 30 days before the
tick go; `after: vars.TODOS_KEPT` reads the age from that setting, a var of wrangler.toml's
`[vars]`, at each run (as the schedules document's `after:` reads a setting). The table and the
column are checked against the migrations of the store's database (`migrations.py`); tickwork's
own tables are refused. Each purge becomes the schedule
`<table>.purge`, every hour, named after the table rather than the declaration, so renaming the
declaration keeps its state and run records. The runtime supplies the action.
"""

import re
from dataclasses import dataclass

from tickwork.kinds.cron_syntax import shown
from tickwork.errors import Invalid, ScheduleError
from tickwork.purging import setting_age
from tickwork.times import HOUR, MINUTE

from .declaration import Declaration, Item
from .migrations import Schema
from .problems import Problem
from .schedules import Spec, _choice, _duration, _problem, _unquoted

FORMATS = ("epoch_ms", "epoch_s", "iso")  # how a column holds a row's time; iso is ISO-8601 text
EVERY = HOUR
ITEMS = ("table", "column", "format", "after")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# Tables an app does not purge: tickwork's own (housekeeping keeps them), SQLite's, D1's, wrangler's.
NOT_THE_APPS = (("tickwork_", "tickwork's own"), ("sqlite_", "SQLite's own"), ("_cf_", "D1's own"),
                ("d1_migrations", "wrangler's record of the migrations applied"))

_MISSING = {
    "table": ("purge.table_unknown", "add e.g. `table: todos`"),
    "column": ("purge.column_unknown", "add the column holding each row's time, e.g. `column: created_at`"),
    "format": ("purge.format_invalid", f"add how the column holds the time: `format:` {', '.join(FORMATS)}"),
    "after": ("purge.after_invalid", "add e.g. `after: 30d`"),
}

_format = _choice("purge.format_invalid", "format", FORMATS)
_after_duration = _duration("purge.after_invalid", "after", "30d", False)


SETTING = re.compile(r"vars\.([A-Za-z_][A-Za-z0-9_]*)")


def _after(text: str) -> int:
    ms = _after_duration(text)
    if ms < MINUTE:
        raise Invalid("purge.after_invalid", f"`after: {shown(_unquoted(text))}` is under a minute",
                      "write at least `after: 1m`")
    return ms


def _after_setting(text: str, settings: dict) -> str:
    """`after: vars.NAME`: NAME, a var of wrangler.toml's [vars] holding a duration the purge
    takes (the value the Worker starts with; a deploy's own may differ, and is checked at run time)."""
    name = SETTING.fullmatch(_unquoted(text)).group(1)
    value = settings.get(name)
    if not isinstance(value, str):
        said = "is not set in wrangler.toml's [vars]" if name not in settings else "is not a string"
        raise Invalid("purge.after_invalid", f"`after: vars.{name}` reads the setting {name}, which {said}",
                      f'add `{name} = "30d"` under [vars] in wrangler.toml')
    if setting_age(value) is None:  # as the run reads it: no quotes taken off
        raise Invalid("purge.after_invalid", f"`after: vars.{name}` reads the setting {name} (wrangler.toml's "
                      f"[vars]), which is `{shown(value)}`: not a whole number above zero of s, m, h or d from "
                      "1m to 36500d", f'set e.g. `{name} = "30d"` under [vars]')
    return name


@dataclass(frozen=True)
class Where:
    """Where a purge's table is: the schema of the store's database, or, with no store named, of
    every bound database (a purge then names the one that holds its table as the store to name)."""

    store: str | None
    schemas: dict[str, Schema]  # binding: its schema
    settings: dict | None = None  # wrangler.toml's [vars], which `after: vars.NAME` reads


def schedule_name(declaration: Declaration, where: Where) -> str | None:
    """The purge's schedule, `<table>.purge`, as the migration spells the table; None where the
    table is not a name."""
    table = _table_written(declaration)
    if table is None:
        return None
    found = _owners(table, where)
    return f"{found[0][1].table(table) if len(found) == 1 else table}.purge"


def owners(declaration: Declaration, where: Where) -> list[str]:
    """The bindings whose migrations create the purge's table."""
    table = _table_written(declaration)
    return [binding for binding, _ in _owners(table, where)] if table is not None else []


def _table_written(declaration: Declaration) -> str | None:
    written = next((item for item in declaration.items if item.key == "table"), None)
    table = _unquoted(written.value) if written else ""
    return table if IDENTIFIER.fullmatch(table) else None


def _owners(table: str, where: Where) -> list[tuple[str, Schema]]:
    return [(binding, schema) for binding, schema in where.schemas.items() if schema.table(table)]


def validate_purge(declaration: Declaration, where: Where) -> tuple[Spec | None, list[Problem]]:
    """Every problem of one purge declaration; its Spec where it has none."""
    written: dict[str, Item] = {}
    problems = []
    for item in declaration.items:
        if item.key not in ITEMS:
            allowed = ", ".join(f"`{key}:`" for key in ITEMS)
            problems.append(_problem(declaration, "schedule.item_invalid", item.line,
                                     f"a purge holds only {allowed}, not `{item.key}:`", f"remove `{item.key}:`"))
        elif item.key in written:
            problems.append(_problem(declaration, "schedule.item_invalid", item.line,
                                     f"`{item.key}:` is given twice", f"keep one `{item.key}:`"))
        else:
            written[item.key] = item
    for key in ITEMS:
        if key not in written:
            code, mend = _MISSING[key]
            problems.append(_problem(declaration, code, declaration.line, f"the purge has no `{key}:`", mend))
    values: dict[str, object] = {}
    setting = "after" in written and SETTING.fullmatch(_unquoted(written["after"].value)) is not None

    def after(text: str):
        return _after_setting(text, where.settings or {}) if setting else _after(text)

    for key, check in (("format", _format), ("after", after)):
        if key in written:
            try:
                values[key] = check(written[key].value)
            except ScheduleError as invalid:
                problems.append(_problem(declaration, invalid.code, written[key].line, invalid.message, invalid.mend))
    if "table" in written:
        trouble = _table(declaration, written, where, values)
        problems += trouble
    if problems or not {"table", "column"} <= values.keys():  # else unknowable, and reported as such
        return None, problems
    return Spec(
        kind="purge", name=f"{values['table']}.purge", source=f"{declaration.file}:{declaration.line}",
        every_ms=EVERY, table=values["table"], column=values["column"], format=values["format"],
        **({"after_setting": values["after"]} if setting else {"after_ms": values["after"]}),
    ), []


def _table(declaration: Declaration, written: dict[str, Item], where: Where, values: dict) -> list[Problem]:
    """The table, its column and the column's type against the migrations; `values` gains the
    table and column as the migration spells them."""
    item = written["table"]
    table = _unquoted(item.value)

    def problem(code: str, line: int, message: str, mend: str) -> list[Problem]:
        return [_problem(declaration, code, line, message, mend)]

    if not IDENTIFIER.fullmatch(table):
        return problem("purge.table_unknown", item.line, f"`table: {shown(table)}` is not a table's name",
                       "name a table of the app's migrations: letters, digits and `_`, e.g. `table: todos`")
    for prefix, whose in NOT_THE_APPS:
        if table.lower().startswith(prefix):
            return problem("purge.table_refused", item.line, f"`{table}` is {whose} table, not the app's",
                           "purge a table the app's own migrations create; tickwork's housekeeping keeps its own")
    schemas = [where.schemas[where.store]] if where.store in where.schemas else list(where.schemas.values())
    if any(schema.problems or schema.unread for schema in schemas):
        return []  # a migration fails, or the directory is not one, and is reported: the tables are not known
    found = [(schema, schema.table(table)) for schema in schemas if schema.table(table)]
    if not found:
        return problem("purge.table_unknown", item.line, f"`table: {table}` is not {_made_by(where)}",
                       f"name a table the migrations create ({_listed(schemas)}), or add a migration creating it")
    if len(found) > 1:
        return []  # several databases have it, none is named the store: store_required says so
    schema, table = found[0]
    values["table"] = table
    if "column" not in written:
        return []
    item = written["column"]
    column = _unquoted(item.value)
    spelled = schema.column(table, column) if IDENTIFIER.fullmatch(column) else None
    if spelled is None:
        return problem("purge.column_unknown", item.line, f"`column: {shown(column)}` is not a column of `{table}`",
                       f"name the column holding each row's time, one of: {', '.join(schema.tables[table])}")
    values["column"] = spelled
    if "format" not in values:
        return []
    mismatch = _mismatch(values["format"], schema.tables[table][spelled])
    if mismatch:
        line = written["format"].line
        return problem("purge.format_invalid", line,
                       f"`{spelled}` is declared `{schema.tables[table][spelled]}`, {mismatch[0]}", mismatch[1])
    return []


def _made_by(where: Where) -> str:
    if where.store in where.schemas:
        schema = where.schemas[where.store]
        return f"a table the migrations of the store {schema.binding} ({schema.directory}/) create"
    return "a table the migrations of a bound D1 database create"


def _listed(schemas: list[Schema]) -> str:
    tables = sorted({table for schema in schemas for table in schema.tables if _the_apps(table)})
    return ", ".join(tables) if tables else "none yet"


def _the_apps(table: str) -> bool:
    return not any(table.lower().startswith(prefix) for prefix, _ in NOT_THE_APPS)


def _mismatch(format: str, declared: str) -> tuple[str, str] | None:
    """Where the column's type affinity keeps times the format does not compare as times: ISO text
    in an INTEGER or REAL column, epoch numbers in a TEXT one."""
    affinity = _affinity(declared)
    if format == "iso" and affinity in ("INTEGER", "REAL"):
        return ("which holds numbers; `format: iso` compares ISO-8601 text",
                "write `format: epoch_ms` or `format: epoch_s` for the numbers it holds")
    if format != "iso" and affinity == "TEXT":
        return (f"which holds text; `format: {format}` compares numbers",
                "write `format: iso` if it holds ISO-8601 text, or keep the times in an INTEGER column")
    return None


def _affinity(declared: str) -> str:
    """SQLite's type affinity of a declared column type (https://sqlite.org/datatype3.html, 3.1)."""
    upper = declared.upper()
    if "INT" in upper:
        return "INTEGER"
    if any(word in upper for word in ("CHAR", "CLOB", "TEXT")):
        return "TEXT"
    if "BLOB" in upper or not upper:
        return "BLOB"
    if any(word in upper for word in ("REAL", "FLOA", "DOUB")):
        return "REAL"
    return "NUMERIC"
