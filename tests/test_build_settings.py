"""The settings the build reads, of any type: `[tool.tickwork]` in pyproject.toml and wrangler.toml's
D1 databases, queues and triggers. A value the build cannot use is a problem with its documented
code at the line that writes it, and a mend; the build never prints a traceback."""

import pytest
from test_build import ACTIONS, CENSUS, problems, project
from tickwork_build.__main__ import main as build_main
from tickwork_build.build import build

# TOML values of every type: each key below is given those that are not its own.
STRING, EMPTY, NUMBER, NEGATIVE, FRACTION, BOOLEAN = '"x"', '""', "5", "-1", "1.5", "true"
ARRAY, STRINGS, TABLE, DATE = "[1]", '["src/app"]', "{ a = 1 }", "1979-05-27"
NUL = '"src\\u0000"'  # a string no path may hold
NOT_STRINGS = [NUMBER, NEGATIVE, FRACTION, BOOLEAN, ARRAY, STRINGS, TABLE, DATE, "[]"]

DIRECTORIES = {"source": 'source = "src"', "app": 'app = "src/app"'}

TOOL_KEYS = [
    ("source", "settings.source_invalid", [STRING, EMPTY, NUL, *NOT_STRINGS]),
    ("app", "settings.app_invalid", [STRING, EMPTY, NUL, '"src"', '"src/app/domains/../.."', *NOT_STRINGS]),
    ("store", "settings.store_invalid", NOT_STRINGS),
    ("d1_statements_per_tick", "settings.statements_per_tick_invalid",
     [STRING, EMPTY, NEGATIVE, FRACTION, BOOLEAN, ARRAY, TABLE, DATE, "9", "1001"]),
    ("retention", "settings.retention_invalid", [STRING, EMPTY, *NOT_STRINGS, '"1h"']),
]


def written_at(text: str, line: str) -> int:
    return text.splitlines().index(line) + 1


def only(found, code):
    [problem] = [p for p in found if p.code == code]
    assert problem.mend
    return problem


def builds_without_a_traceback(root, capsys) -> str:
    assert build_main([str(root)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("key, code, value", [(k, c, v) for k, c, values in TOOL_KEYS for v in values])
def test_a_tickwork_setting_the_build_cannot_use_is_its_code_at_its_line(tmp_path, capsys, key, code, value):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    others = "".join(f"{line}\n" for name, line in DIRECTORIES.items() if name != key)
    (root / "pyproject.toml").write_text(text := f"[tool.tickwork]\n{others}{key} = {value}\n")
    problem = only(problems(root), code)
    assert (problem.file, problem.line) == ("pyproject.toml", written_at(text, f"{key} = {value}"))
    assert f"pyproject.toml:{problem.line}: {code}: " in builds_without_a_traceback(root, capsys)


@pytest.mark.parametrize("text, line", [('tool = "x"\n', 1), ("[tool]\ntickwork = 5\n", 2),
                                        ('[project]\nname = "a"\n\n[tool]\ntickwork = "src"\n', 5)])
def test_tool_or_tool_tickwork_that_is_not_a_table_is_tickwork_invalid(tmp_path, capsys, text, line):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / "pyproject.toml").write_text(text)
    assert [(p.code, p.file, p.line) for p in problems(root)] == [("settings.tickwork_invalid", "pyproject.toml", line)]
    builds_without_a_traceback(root, capsys)


def test_an_empty_tool_tickwork_table_is_the_defaults(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / "pyproject.toml").write_text('[tool]\nname = "a"\n\n[tool.tickwork]\n')
    assert [s.name for s in build(root).schedules] == ["chore_census"]


def test_an_app_outside_the_workers_source_is_app_invalid(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / "elsewhere" / "app").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.tickwork]\nsource = "src"\napp = "elsewhere/app"\n')
    assert [(p.code, p.line) for p in problems(root)] == [("settings.app_invalid", 3)]


def test_a_dotted_setting_is_found_at_its_line(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / "pyproject.toml").write_text('[project]\nname = "a"\n\n[tool]\ntickwork.retention = 5\n')
    assert [(p.code, p.line) for p in problems(root)] == [("settings.retention_invalid", 5)]


WRANGLER = """\
name = "app"
main = "build/app/entry.py"
compatibility_date = "2026-04-21"
{top}
[[d1_databases]]
binding = {binding}
database_name = {database_name}
database_id = "x"
migrations_dir = {migrations_dir}

[[queues.producers]]
binding = {producer_binding}
queue = {producer_queue}

[[queues.consumers]]
queue = {consumer_queue}
max_retries = {max_retries}

[triggers]
crons = {crons}
"""

DEFAULTS = dict(top="", binding='"DB"', database_name='"main"', migrations_dir='"migrations"',
                producer_binding='"EVENTS"', producer_queue='"shop-events"', consumer_queue='"shop-events"',
                max_retries="3", crons='["* * * * *"]')

EMITS_AND_CONSUMES = ACTIONS + """
from tickwork import consumer, event

order_placed = event("order_placed", queue="EVENTS")


@consumer("shop-events")
async def ship():
    pass
"""

PURGE = """\
purge chores_done {
    table: chores_done
    column: done_at
    format: epoch_ms
    after: 30d
}
"""

WRANGLER_KEYS = [
    ("binding", "binding", "settings.d1_databases_invalid", [EMPTY, *NOT_STRINGS]),
    ("database_name", "database_name", "settings.d1_databases_invalid", [EMPTY, *NOT_STRINGS]),
    ("migrations_dir", "migrations_dir", "settings.d1_databases_invalid", [EMPTY, *NOT_STRINGS]),
    ("producer_binding", "binding", "settings.queues_invalid", [EMPTY, *NOT_STRINGS]),
    ("producer_queue", "queue", "settings.queues_invalid", [EMPTY, *NOT_STRINGS]),
    ("consumer_queue", "queue", "settings.queues_invalid", [EMPTY, *NOT_STRINGS]),
    ("max_retries", "max_retries", "settings.max_retries_invalid",
     [STRING, EMPTY, NEGATIVE, FRACTION, BOOLEAN, "false", ARRAY, TABLE, DATE, "101", "1.0"]),
    ("crons", "crons", "deployable.trigger_missing", [STRING, '"* * * * *"', NUMBER, ARRAY, TABLE, DATE]),
]


def wrangler_project(tmp_path, **given):
    root = project(tmp_path, {"c.jadpo": CENSUS, "p.jadpo": PURGE}, actions=EMITS_AND_CONSUMES)
    (root / "migrations").mkdir()
    (root / "migrations" / "0100_app.sql").write_text("CREATE TABLE chores_done (done_at INTEGER);\n")
    text = WRANGLER.format(**(DEFAULTS | given))
    (root / "wrangler.toml").write_text(text)
    return root, text


def test_the_wrangler_toml_these_tests_vary_builds_as_it_is(tmp_path):
    root, _ = wrangler_project(tmp_path)
    assert sorted(s.name for s in build(root).schedules) == ["chore_census", "chores_done.purge"]


@pytest.mark.parametrize("field, key, code, value", [(f, k, c, v) for f, k, c, values in WRANGLER_KEYS for v in values])
def test_a_wrangler_setting_the_build_cannot_use_is_its_code_at_its_line(tmp_path, capsys, field, key, code, value):
    root, text = wrangler_project(tmp_path, **{field: value})
    problem = only(problems(root), code)
    assert (problem.file, problem.line) == ("wrangler.toml", written_at(text, f"{key} = {value}"))
    assert f"wrangler.toml:{problem.line}: {code}: " in builds_without_a_traceback(root, capsys)


@pytest.mark.parametrize("retries", ["0", "3", "100"])
def test_max_retries_is_a_whole_number_from_0_to_100(tmp_path, retries):
    root, _ = wrangler_project(tmp_path, max_retries=retries)
    build(root)
    assert f"'max_retries': {retries}," in (root / "build" / "app" / "tickwork_manifest.py").read_text()


@pytest.mark.parametrize("top, code", [
    ("triggers = 5", "deployable.trigger_missing"),
    ('triggers = { crons = "* * * * *" }', "deployable.trigger_missing"),
    ("d1_databases = 5", "settings.d1_databases_invalid"),
    ("d1_databases = [5]", "settings.d1_databases_invalid"),
    ("queues = 5", "settings.queues_invalid"),
    ("queues = { producers = 5 }", "settings.queues_invalid"),
    ("queues = { consumers = [5] }", "settings.queues_invalid"),
])
def test_a_wrangler_table_of_the_wrong_type_is_its_code_at_its_line(tmp_path, capsys, top, code):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    text = f'name = "app"\nmain = "build/app/entry.py"\n{top}\n'
    if not top.startswith("d1_databases"):
        text += '\n[[d1_databases]]\nbinding = "DB"\ndatabase_id = "x"\n'
    (root / "wrangler.toml").write_text(text)
    problem = only(problems(root), code)
    assert (problem.file, problem.line) == ("wrangler.toml", 3)
    builds_without_a_traceback(root, capsys)


@pytest.mark.parametrize("name", ["wrangler.jsonc", "wrangler.json"])
def test_a_json_wrangler_configuration_which_wrangler_would_read_first_is_refused(tmp_path, name):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / name).write_text('{"name": "app"}\n')
    [problem] = problems(root)
    assert (problem.code, problem.file) == ("settings.file_invalid", name)
    assert "wrangler.toml only" in problem.message


@pytest.mark.parametrize("pyproject, wrangler, where", [
    ('tool = "x"\n', {}, "pyproject.toml:1: settings.tickwork_invalid"),
    ("[tool]\ntickwork = 5\n", {}, "pyproject.toml:2: settings.tickwork_invalid"),
    ("[tool.tickwork]\nsource = 5\n", {}, "pyproject.toml:2: settings.source_invalid"),
    ('[tool.tickwork]\napp = ["src/app"]\n', {}, "pyproject.toml:2: settings.app_invalid"),
    (None, {"migrations_dir": "5"}, "wrangler.toml:9: settings.d1_databases_invalid"),
    (None, {"max_retries": '"x"'}, "wrangler.toml:17: settings.max_retries_invalid"),
    (None, {"max_retries": "[1]"}, "wrangler.toml:17: settings.max_retries_invalid"),
    (None, {"max_retries": "1.5"}, "wrangler.toml:17: settings.max_retries_invalid"),
    (None, {"max_retries": "-1"}, "wrangler.toml:17: settings.max_retries_invalid"),
    (None, {"max_retries": "true"}, "wrangler.toml:17: settings.max_retries_invalid"),
])
def test_the_settings_that_gave_tracebacks_or_were_accepted_silently(tmp_path, capsys, pyproject, wrangler, where):
    root, _ = wrangler_project(tmp_path, **wrangler)
    if pyproject:
        (root / "pyproject.toml").write_text(pyproject)
    assert where in builds_without_a_traceback(root, capsys)


@pytest.mark.parametrize("name", ["pyproject.toml", "wrangler.toml"])
@pytest.mark.parametrize("unreadable", ["nested", "directory"])
def test_a_settings_file_nested_too_deeply_or_not_a_file_is_file_invalid(tmp_path, capsys, name, unreadable):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / name).unlink()
    if unreadable == "nested":
        (root / name).write_text("a = " + "[" * 100_000 + "]" * 100_000 + "\n")
    else:
        (root / name).mkdir()
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == ("settings.file_invalid", name, 1)
    builds_without_a_traceback(root, capsys)


def test_a_source_left_to_its_default_that_is_no_directory_says_so(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / "src").rename(root / "worker")
    (root / "pyproject.toml").write_text("[tool.tickwork]\n")
    problem = only(problems(root), "settings.source_invalid")
    assert problem.line == 1
    assert "`source`, not written, is `src`" in problem.message


def test_a_bad_max_retries_of_the_second_consumer_is_at_its_own_line(tmp_path):
    root, text = wrangler_project(tmp_path)
    text = text.replace("[triggers]", '[[queues.consumers]]\nqueue = "other"\nmax_retries = "5"\n\n[triggers]')
    (root / "wrangler.toml").write_text(text)
    problem = only(problems(root), "settings.max_retries_invalid")
    assert problem.line == written_at(text, 'max_retries = "5"') == 21


# Values of every TOML type, for the settings below to be written with at random.
ANY_VALUES = [STRING, EMPTY, NUMBER, NEGATIVE, FRACTION, BOOLEAN, ARRAY, STRINGS, TABLE, DATE, NUL, '"src"',
              '"DB"', '"/"', '"../.."', '"* * * * *"', '["* * * * *", 5]', "[[1], { a = [] }]", "inf", "101"]
SETTINGS_KEYS = {"pyproject.toml": ("[tool.tickwork]", ["source", "app", "store", "d1_statements_per_tick", "retention"]),
                 "d1_databases": ("[[d1_databases]]", ["binding", "database_name", "database_id", "migrations_dir"]),
                 "producers": ("[[queues.producers]]", ["binding", "queue"]),
                 "consumers": ("[[queues.consumers]]", ["queue", "max_retries"]),
                 "triggers": ("[triggers]", ["crons"])}


def any_settings(rng) -> tuple[str, str]:
    """A pyproject.toml and a wrangler.toml whose keys hold what a default would, or anything."""
    tables = {}
    for table, (header, keys) in SETTINGS_KEYS.items():
        written = [f"{key} = {rng.choice(ANY_VALUES)}" for key in keys if rng.random() < 0.6]
        tables[table] = "\n".join([header, *written]) + "\n"
    wrangler = 'name = "app"\nmain = "build/app/entry.py"\n\n' + "\n".join(
        tables[table] for table in ("d1_databases", "producers", "consumers", "triggers") if rng.random() < 0.8)
    return tables["pyproject.toml"], wrangler


def test_settings_of_any_type_build_or_are_refused_with_codes_never_a_traceback(tmp_path, capsys):
    import random

    rng = random.Random(2)  # seeded: a failure names the same files each run
    for attempt in range(20):
        root = project(tmp_path / str(attempt), {"c.jadpo": CENSUS})
        pyproject, wrangler = any_settings(rng)
        (root / "pyproject.toml").write_text(pyproject)
        (root / "wrangler.toml").write_text(wrangler)
        build_main([str(root)])
        assert "Traceback" not in capsys.readouterr().err, (pyproject, wrangler)
