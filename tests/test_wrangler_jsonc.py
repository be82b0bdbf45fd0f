"""A Worker configured by wrangler.jsonc (or wrangler.json) builds as one configured by
wrangler.toml does: JSON with `//` and `/* */` comments and trailing commas is read, its
settings checked with the same codes at the lines that write them, and the minute cron added
with its comments kept. Wrangler's order decides which file is the configuration."""

import json

import pytest
from test_build import CENSUS, problems, project
from test_build_settings import EMITS_AND_CONSUMES, PURGE, builds_without_a_traceback, only, written_at
from tickwork_build import jsonc
from tickwork_build.build import build
from tickwork_build.project import load_project, resolve_store

# --- the reader


def test_line_and_block_comments_are_read_as_nothing():
    assert jsonc.loads('// a Worker\n{ /* its name */ "name": "app" // said\n}\n') == {"name": "app"}


def test_comment_marks_inside_strings_are_the_strings_own():
    text = '{"url": "https://example.com/*x*/", "say": "a \\"// quoted\\" word"}'

    assert jsonc.loads(text) == {"url": "https://example.com/*x*/", "say": 'a "// quoted" word'}


def test_trailing_commas_in_objects_and_arrays_are_read_as_nothing():
    assert jsonc.loads('{\n  "crons": ["0 3 * * *",],\n  "vars": {"A": "1",},\n}') == {
        "crons": ["0 3 * * *"], "vars": {"A": "1"}}


def test_stripping_keeps_every_offset_and_line():
    text = '/* a\n   comment */ {"a": [1, 2,], // b\n}\n'
    stripped = jsonc.strip(text)

    assert len(stripped) == len(text) and stripped.count("\n") == text.count("\n")
    assert json.loads(stripped) == {"a": [1, 2]}


@pytest.mark.parametrize("text, line, reason", [
    ('{\n  "name": "app"\n  "main": "x"\n}', 3, '"," or "}" should be here'),
    ('{\n  "a": [1,,],\n}', 2, 'a value should follow "," (two commas?)'),
    ('{\n  "a": 1\n}\n/* open', 4, "a /* comment is not closed"),
    ('{\n  name: "app"\n}', 2, "a key (a string in double quotes) should be here"),
    ('{"a": 1}\n{"b": 2}', 2, "more follows the configuration's closing brace"),
])
def test_what_is_not_jsonc_is_said_at_its_line(text, line, reason):
    with pytest.raises(jsonc.JsoncError) as error:
        jsonc.loads(text)

    assert (error.value.line, error.value.reason) == (line, reason)


def test_a_member_added_to_an_object_written_a_member_a_line_goes_on_a_line_of_its_own():
    text = '{\n\t"name": "app", // its name\n\t"main": "src/entry.py"\n}\n'

    assert jsonc.add_member(text, (), "triggers", {"crons": []}) == \
        '{\n\t"name": "app", // its name\n\t"main": "src/entry.py",\n\t"triggers": { "crons": [] }\n}\n'


def test_an_item_added_to_an_array_written_on_one_line_stays_on_it():
    assert jsonc.add_item('{"crons": ["0 3 * * *"]}', ("crons",), "* * * * *") == '{"crons": ["0 3 * * *", "* * * * *"]}'


# --- the build on a wrangler.jsonc

WRANGLER_JSONC = """\
// The Worker's configuration, as Cloudflare's templates write it.
{{
  "name": "app",
  "main": "build/app/entry.py",
  "compatibility_date": "2026-04-21",
  /* the store */
  "d1_databases": [
    {{
      "binding": {binding},
      "database_name": {database_name},
      "database_id": "x",
      "migrations_dir": {migrations_dir},
    }},
  ],
  "queues": {{
    "producers": [{{ "binding": {producer_binding}, "queue": {producer_queue} }}],
    "consumers": [
      {{
        "queue": {consumer_queue},
        "max_retries": {max_retries}, // Cloudflare allows 100
      }},
    ],
  }},
  "vars": {{ "KEPT": "30d" }},
  "triggers": {{
    "crons": {crons},
  }},
}}
"""
DEFAULTS = dict(binding='"DB"', database_name='"main"', migrations_dir='"migrations"', producer_binding='"EVENTS"',
                producer_queue='"shop-events"', consumer_queue='"shop-events"', max_retries="3",
                crons='["* * * * *"]')
NOT_STRINGS = ["5", "-1", "1.5", "true", "null", "[1]", '["src/app"]', '{"a": 1}', "[]"]
WRANGLER_KEYS = [
    ("binding", "binding", "settings.d1_databases_invalid", ['""', *NOT_STRINGS]),
    ("database_name", "database_name", "settings.d1_databases_invalid", ['""', *NOT_STRINGS]),
    ("migrations_dir", "migrations_dir", "settings.d1_databases_invalid", ['""', *NOT_STRINGS]),
    ("producer_binding", "binding", "settings.queues_invalid", ['""', *NOT_STRINGS]),
    ("producer_queue", "queue", "settings.queues_invalid", ['""', *NOT_STRINGS]),
    ("consumer_queue", "queue", "settings.queues_invalid", ['""', *NOT_STRINGS]),
    ("max_retries", "max_retries", "settings.max_retries_invalid",
     ['"x"', '""', "-1", "1.5", "true", "false", "null", "[1]", '{"a": 1}', "101", "1.0"]),
    ("crons", "crons", "deployable.trigger_missing", ['"x"', '"* * * * *"', "5", "[1]", '{"a": 1}']),
]


def jsonc_project(tmp_path, name="wrangler.jsonc", **given):
    root = project(tmp_path, {"c.jadpo": CENSUS, "p.jadpo": PURGE}, actions=EMITS_AND_CONSUMES)
    (root / "migrations").mkdir()
    (root / "migrations" / "0100_app.sql").write_text("CREATE TABLE chores_done (done_at INTEGER);\n")
    (root / "wrangler.toml").unlink()
    text = WRANGLER_JSONC.format(**(DEFAULTS | given))
    (root / name).write_text(text)
    return root, text


def _line_writing(text: str, key: str, value: str) -> int:
    return next(number for number, line in enumerate(text.splitlines(), start=1) if f'"{key}": {value}' in line)


@pytest.mark.parametrize("name", ["wrangler.jsonc", "wrangler.json"])
def test_the_wrangler_jsonc_these_tests_vary_builds_as_it_is(tmp_path, name):
    root, _ = jsonc_project(tmp_path, name)
    built = build(root)

    assert sorted(s.name for s in built.schedules) == ["chore_census", "chores_done.purge"]
    assert "'max_retries': 3," in built.manifest.read_text()


def test_the_build_reads_the_store_queues_and_vars_of_a_wrangler_jsonc(tmp_path):
    root, _ = jsonc_project(tmp_path)
    read = load_project(root)

    assert (read.config_file, resolve_store(read)) == ("wrangler.jsonc", ("DB", ""))
    assert [p["queue"] for p in read.queue_producers] == ["shop-events"] == [c["queue"] for c in read.queue_consumers]
    assert read.worker_vars == {"KEPT": "30d"}


@pytest.mark.parametrize("field, key, code, value", [(f, k, c, v) for f, k, c, values in WRANGLER_KEYS for v in values])
def test_a_wrangler_jsonc_setting_the_build_cannot_use_is_its_code_at_its_line(tmp_path, capsys, field, key, code, value):
    root, text = jsonc_project(tmp_path, **{field: value})
    problem = only(problems(root), code)

    assert (problem.file, problem.line) == ("wrangler.jsonc", _line_writing(text, key, value))
    assert f"wrangler.jsonc:{problem.line}: {code}: " in builds_without_a_traceback(root, capsys)


def test_the_build_adds_the_minute_cron_to_a_wrangler_jsonc_keeping_its_comments(tmp_path):
    root, text = jsonc_project(tmp_path, crons='["0 3 * * *"] /* nightly */')
    build(root)

    written = (root / "wrangler.jsonc").read_text()
    assert jsonc.loads(written)["triggers"]["crons"] == ["0 3 * * *", "* * * * *"]
    assert written.replace(', "* * * * *"', "") == text


def test_the_build_adds_triggers_to_a_wrangler_jsonc_without_any(tmp_path):
    root, text = jsonc_project(tmp_path)
    (root / "wrangler.jsonc").write_text(text.replace('  "triggers": {\n    "crons": ["* * * * *"],\n  },\n', ""))
    build(root)

    assert jsonc.loads((root / "wrangler.jsonc").read_text())["triggers"] == {"crons": ["* * * * *"]}


def test_a_wrangler_jsonc_that_is_not_jsonc_is_file_invalid_at_its_line(tmp_path, capsys):
    root, text = jsonc_project(tmp_path)
    (root / "wrangler.jsonc").write_text(text.replace('"name": "app",', '"name": "app"'))
    [problem] = problems(root)

    assert (problem.code, problem.file, problem.line) == ("settings.file_invalid", "wrangler.jsonc", 4)
    assert 'wrangler.jsonc:4: settings.file_invalid: wrangler.jsonc is not valid JSON (with comments): ' \
        '"," or "}" should be here' in builds_without_a_traceback(root, capsys)


def test_a_wrangler_jsonc_that_is_no_object_is_file_invalid(tmp_path):
    root, _ = jsonc_project(tmp_path)
    (root / "wrangler.jsonc").write_text("[]\n")

    assert [(p.code, p.line) for p in problems(root)] == [("settings.file_invalid", 1)]


@pytest.mark.parametrize("top, code", [
    ('"triggers": 5,', "deployable.trigger_missing"),
    ('"triggers": { "crons": "* * * * *" },', "deployable.trigger_missing"),
    ('"queues": 5,', "settings.queues_invalid"),
    ('"queues": { "producers": 5 },', "settings.queues_invalid"),
])
def test_a_wrangler_jsonc_member_of_the_wrong_type_is_its_code_at_its_line(tmp_path, top, code):
    root = project(tmp_path, {"c.jadpo": CENSUS})
    (root / "wrangler.toml").unlink()
    text = '{\n  "name": "app",\n  "main": "build/app/entry.py",\n  "d1_databases": [{ "binding": "DB" }],\n' \
           f"  {top}\n}}\n"
    (root / "wrangler.jsonc").write_text(text)
    problem = only(problems(root), code)

    assert (problem.file, problem.line) == ("wrangler.jsonc", 5)


def test_wrangler_json_and_wrangler_jsonc_together_are_refused_naming_the_one_wrangler_reads(tmp_path):
    root, text = jsonc_project(tmp_path)
    (root / "wrangler.json").write_text(text)
    [problem] = problems(root)

    assert (problem.code, problem.file) == ("settings.file_invalid", "wrangler.jsonc")
    assert "wrangler reads wrangler.json alone" in problem.message


def test_without_a_store_the_reason_names_the_wrangler_jsonc(tmp_path):
    root, text = jsonc_project(tmp_path)
    start, end = text.index('  "d1_databases"'), text.index('  "queues"')
    (root / "wrangler.jsonc").write_text(text[:start] + text[end:])

    assert resolve_store(load_project(root)) == (None, "wrangler.jsonc binds no D1 database to keep schedule state in")


@pytest.mark.parametrize("last", ['"a": 1 /* one */,', '"a": 1, // one', '"a": 1 // one'])
def test_a_member_added_after_a_commented_last_one_takes_one_comma(last):
    added = jsonc.add_member(f"{{\n  {last}\n}}\n", (), "b", 2)

    assert jsonc.loads(added) == {"a": 1, "b": 2} and "one" in added
