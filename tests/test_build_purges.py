"""Purge declarations: rows of one of the app's own tables go once older than `after:`. The build
checks the table and column against the app's migrations, applied to a scratch SQLite database,
and writes each purge as the hourly schedule `<table>.purge`."""

import importlib.util
import shutil

import pytest
from helpers import ROOT
from test_build import ACTIONS, ONE_DATABASE, codes, problems, project
from tickwork_build.build import build

TODOS = """\
CREATE TABLE todos (
    id         INTEGER PRIMARY KEY,
    title      TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    created    TEXT,
    stamped    DATETIME DEFAULT CURRENT_TIMESTAMP
);
"""

PURGE = """\
purge todos {
    table: todos
    column: created_at
    format: epoch_ms
    after: 30d
}
"""

PYTHON_PURGE = ACTIONS + """
from tickwork import purge

purge("todos", column="created_at", format="epoch_ms", after="30d")
"""  # the call is at line 12 of the domain's module

ENTRY = {
    "kind": "purge", "name": "todos.purge", "table": "todos", "column": "created_at", "format": "epoch_ms",
    "after_ms": 2_592_000_000, "every_ms": 3_600_000,
    "source": "src/app/domains/planning/schedules/todos.jadpo:1",
}


def with_migrations(root, migrations=None, directory="migrations"):
    (root / directory).mkdir(parents=True, exist_ok=True)
    for name, sql in (migrations or {"0001_todos.sql": TODOS}).items():
        (root / directory / name).write_text(sql)
    return root


def app(tmp_path, files=None, *, migrations=None, **options):
    return with_migrations(project(tmp_path, files if files is not None else {"todos.jadpo": PURGE}, **options),
                           migrations)


def purge_with(**items):
    body = {"table": "todos", "column": "created_at", "format": "epoch_ms", "after": "30d"} | items
    lines = [f"    {key}: {value}" for key, value in body.items() if value is not None]
    return {"todos.jadpo": "purge todos {\n" + "\n".join(lines) + "\n}\n"}


def manifest_of(built):
    spec = importlib.util.spec_from_file_location("manifest", built.manifest)
    manifest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(manifest)
    return manifest


def test_a_purge_is_written_to_the_manifest_as_the_hourly_schedule_of_its_table(tmp_path):
    assert manifest_of(build(app(tmp_path))).SCHEDULES == (ENTRY,)


def test_a_purge_declared_in_python_is_the_same_schedule_as_in_jadpo(tmp_path):
    jadpo = build(app(tmp_path / "a")).schedules
    python = build(app(tmp_path / "b", {}, actions=PYTHON_PURGE)).schedules

    assert [spec.model_copy(update={"source": ""}) for spec in python] == [
        spec.model_copy(update={"source": ""}) for spec in jadpo]
    assert python[0].source == "src/app/domains/planning/__init__.py:12"


def test_renaming_the_declaration_keeps_the_schedules_name_which_is_the_tables(tmp_path):
    renamed = {"todos.jadpo": PURGE.replace("purge todos", "purge old_todos_go")}

    assert [spec.name for spec in build(app(tmp_path, renamed)).schedules] == ["todos.purge"]


def test_the_table_and_column_are_named_as_the_migration_spells_them(tmp_path):
    [spec] = build(app(tmp_path, purge_with(table="TODOS", column="Created_At"))).schedules

    assert (spec.name, spec.table, spec.column) == ("todos.purge", "todos", "created_at")


@pytest.mark.parametrize("format_", ["epoch_ms", "epoch_s"])
def test_epoch_formats_read_an_integer_column(tmp_path, format_):
    [spec] = build(app(tmp_path, purge_with(format=format_))).schedules

    assert spec.format == format_


@pytest.mark.parametrize("column", ["created", "stamped"])
def test_iso_reads_a_text_column_or_one_declared_datetime(tmp_path, column):
    [spec] = build(app(tmp_path, purge_with(column=column, format="iso"))).schedules

    assert (spec.column, spec.format) == (column, "iso")


@pytest.mark.parametrize(("after", "ms"), [("1m", 60_000), ("36500d", 36_500 * 86_400_000), ('"2h"', 7_200_000)])
def test_after_is_a_duration_from_a_minute_to_a_century(tmp_path, after, ms):
    [spec] = build(app(tmp_path, purge_with(after=after))).schedules

    assert spec.after_ms == ms


def test_a_table_the_migrations_do_not_create_is_unknown(tmp_path):
    [problem] = problems(app(tmp_path, purge_with(table="chores")))

    assert (problem.code, problem.name, problem.line) == ("purge.table_unknown", "todos", 2)
    assert "todos" in problem.mend


def test_a_table_name_that_is_not_an_identifier_is_unknown(tmp_path):
    assert codes(app(tmp_path, purge_with(table='"todos; DROP TABLE todos"'))) == [
        ("purge.table_unknown", "todos", 2)]


def test_a_column_the_table_does_not_have_is_unknown(tmp_path):
    [problem] = problems(app(tmp_path, purge_with(column="done_at")))

    assert (problem.code, problem.line) == ("purge.column_unknown", 3)
    assert "created_at" in problem.mend


@pytest.mark.parametrize("table", ["tickwork_runs", "tickwork_schedules", "Tickwork_Outbox", "sqlite_sequence",
                                   "d1_migrations", "_cf_KV"])
def test_tables_that_are_not_the_apps_are_refused(tmp_path, table):
    assert codes(app(tmp_path, purge_with(table=table))) == [("purge.table_refused", "todos", 2)]


def test_tickwork_tables_are_refused_even_when_the_apps_migrations_create_them(tmp_path):
    tickwork = (ROOT / "migrations" / "0001_schedules.sql").read_text()
    root = app(tmp_path, purge_with(table="tickwork_runs", column="due_at"),
               migrations={"0001_schedules.sql": tickwork})

    assert codes(root) == [("purge.table_refused", "todos", 2)]


@pytest.mark.parametrize("format_", ["epoch_us", "ms", "ISO", ""])
def test_a_format_other_than_epoch_ms_epoch_s_or_iso_is_invalid(tmp_path, format_):
    assert codes(app(tmp_path, purge_with(format=format_))) == [("purge.format_invalid", "todos", 4)]


def test_iso_on_an_integer_column_is_invalid(tmp_path):
    [problem] = problems(app(tmp_path, purge_with(format="iso")))

    assert (problem.code, problem.line) == ("purge.format_invalid", 4)
    assert "INTEGER" in problem.message and "epoch_ms" in problem.mend


def test_an_epoch_format_on_a_text_column_is_invalid(tmp_path):
    assert codes(app(tmp_path, purge_with(column="created", format="epoch_s"))) == [
        ("purge.format_invalid", "todos", 4)]


@pytest.mark.parametrize("after", ["soon", "30", "30s", "0d", "36501d", "１d", ""])
def test_after_not_a_duration_from_a_minute_to_a_century_is_invalid(tmp_path, after):
    assert codes(app(tmp_path, purge_with(after=after))) == [("purge.after_invalid", "todos", 5)]


@pytest.mark.parametrize(("missing", "code"), [
    ("table", "purge.table_unknown"), ("column", "purge.column_unknown"),
    ("format", "purge.format_invalid"), ("after", "purge.after_invalid"),
])
def test_each_item_is_required_and_its_absence_reported_at_the_declaration(tmp_path, missing, code):
    assert codes(app(tmp_path, purge_with(**{missing: None}))) == [(code, "todos", 1)]


def test_an_item_a_purge_does_not_hold_or_one_given_twice_is_item_invalid(tmp_path):
    files = {"todos.jadpo": PURGE.replace("    after: 30d\n", "    after: 30d\n    every: 1h\n    after: 7d\n")}

    assert codes(app(tmp_path, files)) == [
        ("schedule.item_invalid", "todos", 6), ("schedule.item_invalid", "todos", 7)]


def test_every_bad_item_is_reported_each_at_its_line(tmp_path):
    files = purge_with(column="done_at", format="epoch", after="soon")

    assert codes(app(tmp_path, files)) == [
        ("purge.column_unknown", "todos", 3), ("purge.format_invalid", "todos", 4),
        ("purge.after_invalid", "todos", 5)]


def test_two_purges_of_one_table_are_refused_at_the_second(tmp_path):
    second = PURGE.replace("purge todos", "purge old_todos").replace("table: todos", "table: Todos")
    found = problems(app(tmp_path, {"a.jadpo": PURGE, "b.jadpo": second}))

    assert [(p.code, p.file.rsplit("/", 1)[-1], p.line) for p in found] == [("schedule.item_invalid", "b.jadpo", 1)]
    assert "a.jadpo:1" in found[0].message


def test_a_purge_in_python_and_one_in_jadpo_of_one_table_are_two_purges(tmp_path):
    found = problems(app(tmp_path, {"todos.jadpo": PURGE}, actions=PYTHON_PURGE))

    assert [(p.code, p.file, p.line) for p in found] == [
        ("schedule.item_invalid", "src/app/domains/planning/__init__.py", 12)]
    assert "src/app/domains/planning/schedules/todos.jadpo:1" in found[0].message


def test_a_schedule_named_as_a_purges_schedule_clashes_with_it(tmp_path):
    census = "schedule todos.purge {\n  every: 15m\n  run: queue_chore_census()\n}\n"
    found = problems(app(tmp_path, {"a.jadpo": PURGE, "b.jadpo": census}))

    assert [(p.code, p.name, p.line) for p in found] == [("schedule.item_invalid", "todos.purge", 1)]


def test_a_purge_and_a_schedule_may_share_the_declarations_name(tmp_path):
    census = "schedule todos {\n  every: 15m\n  run: queue_chore_census()\n}\n"

    assert sorted(spec.name for spec in build(app(tmp_path, {"a.jadpo": PURGE, "b.jadpo": census})).schedules) == [
        "todos", "todos.purge"]


def test_python_purges_are_reported_at_the_call_and_never_raise_on_import(tmp_path):
    source = ACTIONS + '\nfrom tickwork import purge\n\npurge(None, column="created_at", format=3, after=30)\n'
    found = problems(app(tmp_path, {}, actions=source))

    assert sorted((p.code, p.file, p.line) for p in found) == [
        ("purge.after_invalid", "src/app/domains/planning/__init__.py", 12),
        ("purge.format_invalid", "src/app/domains/planning/__init__.py", 12),
        ("purge.table_unknown", "src/app/domains/planning/__init__.py", 12),
    ]


def test_a_python_purge_outside_a_domains_package_is_place_invalid(tmp_path):
    root = app(tmp_path, {}, actions=ACTIONS + "import app.shared\n")
    (root / "src" / "app" / "shared.py").write_text(
        'from tickwork import purge\n\npurge("todos", column="created_at", format="epoch_ms", after="30d")\n')

    assert [(p.code, p.file, p.line) for p in problems(root)] == [
        ("purge.place_invalid", "src/app/shared.py", 3)]


def test_a_python_purge_before_a_failing_line_of_its_module_is_still_checked(tmp_path):
    source = PYTHON_PURGE.replace('after="30d")', 'after="soon")') + "raise RuntimeError('later')\n"
    found = problems(app(tmp_path, {}, actions=source))

    assert sorted((p.code, p.line) for p in found) == [("domain.import_failed", 13), ("purge.after_invalid", 12)]


def test_migrations_are_applied_in_the_order_of_their_numbers(tmp_path):
    migrations = {
        "2_todos.sql": TODOS,
        "10_done.sql": "ALTER TABLE todos ADD COLUMN done_at INTEGER;  -- needs 2 first\n",
    }

    [spec] = build(app(tmp_path, purge_with(column="done_at"), migrations=migrations)).schedules

    assert spec.column == "done_at"


def test_a_table_a_later_migration_drops_is_unknown(tmp_path):
    migrations = {"0001_todos.sql": TODOS, "0002_gone.sql": "DROP TABLE todos;\n"}

    assert codes(app(tmp_path, migrations=migrations)) == [("purge.table_unknown", "todos", 2)]


def test_a_migration_that_fails_is_reported_at_its_statement_and_hides_the_table_checks(tmp_path):
    broken = TODOS + "\n-- then a typo\nCREATE TABLE chores (\n  id INTEGER PRIMARY KEY,\n) ;\n"
    found = problems(app(tmp_path, migrations={"0001_todos.sql": broken}))

    assert [(p.code, p.file, p.line) for p in found] == [("purge.migrations_invalid", "migrations/0001_todos.sql", 10)]


def test_the_migrations_dir_of_the_store_is_read(tmp_path):
    databases = ONE_DATABASE + 'migrations_dir = "db/schema"\n'
    root = with_migrations(project(tmp_path, {"todos.jadpo": PURGE}, databases=databases), directory="db/schema")

    assert [spec.name for spec in build(root).schedules] == ["todos.purge"]


SEVERAL = """
[[d1_databases]]
binding = "DB"
database_name = "main"
database_id = "x"
migrations_dir = "migrations"

[[d1_databases]]
binding = "ARCHIVE"
database_name = "archive"
database_id = "y"
migrations_dir = "archive_migrations"
"""


def test_with_several_databases_and_none_named_a_purge_is_store_required_naming_its_tables_database(tmp_path):
    root = project(tmp_path, {"todos.jadpo": PURGE}, databases=SEVERAL)
    with_migrations(root, {"0001_archive.sql": TODOS}, directory="archive_migrations")
    with_migrations(root, {"0001_other.sql": "CREATE TABLE other (id INTEGER);\n"})

    [problem] = problems(root)

    assert (problem.code, problem.name, problem.line) == ("schedule.store_required", "todos", 1)
    assert 'store = "ARCHIVE"' in problem.mend


def test_the_table_must_be_in_the_stores_database(tmp_path):
    root = project(tmp_path, {"todos.jadpo": PURGE}, databases=SEVERAL, tool='store = "DB"\n')
    with_migrations(root, {"0001_archive.sql": TODOS}, directory="archive_migrations")

    assert codes(root) == [("purge.table_unknown", "todos", 2)]


def test_a_syntax_error_resumes_at_the_next_purge(tmp_path):
    files = {"todos.jadpo": "schedule broken {\n  every 15m\n}\n" + PURGE}

    assert codes(app(tmp_path, files)) == [("declaration.syntax_invalid", None, 2)]


def test_the_example_app_purges_its_own_chores_done_table(tmp_path):
    root = tmp_path / "example"
    shutil.copytree(ROOT / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "migrations", root / "migrations")
    for name in ("pyproject.toml", "wrangler.toml"):
        shutil.copy(ROOT / name, root / name)

    entries = manifest_of(build(root)).SCHEDULES

    assert [entry for entry in entries if entry["kind"] == "purge"] == [{
        "kind": "purge", "name": "chores_done.purge", "table": "chores_done", "column": "done_at",
        "format": "epoch_ms", "after_ms": 30 * 86_400_000, "every_ms": 3_600_000,
        "source": "src/app/domains/planning/schedules/chores_done.jadpo:3",
    }]


KEPT_IN_VARS = ONE_DATABASE + '\n[vars]\nTODOS_KEPT = "7d"\n'


def test_after_may_read_the_age_from_a_setting_a_var_of_wrangler_toml(tmp_path):
    [entry] = manifest_of(build(app(tmp_path, purge_with(after="vars.TODOS_KEPT"), databases=KEPT_IN_VARS))).SCHEDULES

    assert entry["after_setting"] == "TODOS_KEPT" and "after_ms" not in entry


def test_a_python_purge_reads_a_setting_as_the_jadpo_one_does(tmp_path):
    actions = PYTHON_PURGE.replace('after="30d"', 'after="vars.TODOS_KEPT"')
    [spec] = build(app(tmp_path, {}, actions=actions, databases=KEPT_IN_VARS)).schedules

    assert (spec.after_setting, spec.after_ms) == ("TODOS_KEPT", None)


def test_after_reading_a_setting_wrangler_toml_does_not_set_is_invalid(tmp_path):
    [problem] = problems(app(tmp_path, purge_with(after="vars.TODOS_KEPT")))

    assert (problem.code, problem.name, problem.line) == ("purge.after_invalid", "todos", 5)
    assert "TODOS_KEPT" in problem.message and '[vars]' in problem.mend


@pytest.mark.parametrize("value", ['"soon"', '"30s"', "30", '"36501d"'])
def test_a_setting_after_reads_must_hold_a_duration_from_a_minute_to_a_century(tmp_path, value):
    databases = ONE_DATABASE + f"\n[vars]\nTODOS_KEPT = {value}\n"

    assert codes(app(tmp_path, purge_with(after="vars.TODOS_KEPT"), databases=databases)) == [
        ("purge.after_invalid", "todos", 5)]


def test_a_setting_after_reads_is_taken_as_the_run_reads_it_so_quotes_inside_it_are_refused(tmp_path):
    databases = ONE_DATABASE + "\n[vars]\nTODOS_KEPT = '\"30d\"'\n"  # the var holds "30d", quotes and all

    assert codes(app(tmp_path, purge_with(after="vars.TODOS_KEPT"), databases=databases)) == [
        ("purge.after_invalid", "todos", 5)]


def test_a_python_purge_whose_after_cannot_be_written_as_text_is_after_invalid(tmp_path):
    unwritable = "class Unwritable:\n    def __str__(self):\n        raise RuntimeError('no text')\n\n\n"
    source = PYTHON_PURGE.replace("from tickwork import purge\n", "from tickwork import purge\n" + unwritable)
    source = source.replace('after="30d")', "after=Unwritable())")
    found = problems(app(tmp_path, {}, actions=source))

    assert [(p.code, p.file, p.line) for p in found] == [
        ("purge.after_invalid", "src/app/domains/planning/__init__.py", 17)]
    assert "Unwritable" in found[0].message
