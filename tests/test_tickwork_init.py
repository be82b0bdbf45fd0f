"""`tickwork init` adds tickwork to a Worker of one's own (docs/tutorial/add-to-a-worker.md):
it says each change, changes nothing run again, and refuses, changing nothing, what it cannot do.
The host's Node side is left out here (`node_side=False`); tests/e2e/test_a_worker_of_ones_own.py
installs it."""

import ast
import json
import sys
import textwrap
import tomllib

import pytest
from helpers import ROOT, TEMPLATE_ENTRY, TEMPLATE_WRANGLER_JSONC, TEMPLATE_WRANGLER_TOML
from tickwork_build import jsonc

from tickwork_tool.init import IMPORTS, METHODS, Refused, init
from tickwork_tool.shipped import migrations
from tickwork_tool.vendoring import sync_migrations

WRANGLER, ENTRY = TEMPLATE_WRANGLER_TOML, TEMPLATE_ENTRY


def _worker(root, wrangler=WRANGLER, entry=ENTRY):
    (root / "src").mkdir()
    (root / "pyproject.toml").write_text('[project]\nname = "my-worker"\nversion = "0.1.0"\n')
    (root / "wrangler.toml").write_text(wrangler)
    (root / "src" / "entry.py").write_text(entry)
    return root


def _files(root):
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in root.rglob("*") if path.is_file()}


def _init(root):
    said = []
    init(root, node_side=False, say=said.append)
    return said


def _refusal(root) -> str:
    before = _files(root)
    with pytest.raises(Refused) as refused:
        _init(root)
    assert _files(root) == before, "a refused init changes nothing"
    return str(refused.value)


def test_init_points_main_at_the_build_and_adds_the_build_command_and_the_minute_cron(tmp_path):
    _init(_worker(tmp_path))

    wrangler = tomllib.loads((tmp_path / "wrangler.toml").read_text())
    assert wrangler["main"] == "build/app/entry.py"
    assert wrangler["build"]["command"].endswith("tickwork build")
    assert wrangler["triggers"]["crons"] == ["* * * * *"]


def test_init_adds_the_tool_tickwork_table_and_the_app_package(tmp_path):
    _init(_worker(tmp_path))

    settings = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["tickwork"]
    assert settings == {"source": "src", "app": "src/app"}
    assert (tmp_path / "src" / "app" / "domains" / "__init__.py").is_file()


def test_init_copies_tickworks_migrations_under_their_own_numbers(tmp_path):
    _init(_worker(tmp_path))

    copied = sorted(path.name for path in (tmp_path / "migrations").iterdir())
    assert copied == [path.name for path in migrations()]
    assert all(name[:2] == "00" for name in copied)


def test_init_gives_default_scheduled_and_queue_and_keeps_its_fetch(tmp_path):
    _init(_worker(tmp_path))

    entry = ast.parse((tmp_path / "src" / "entry.py").read_text())
    default = next(node for node in entry.body if isinstance(node, ast.ClassDef))
    assert [method.name for method in default.body] == ["fetch", "scheduled", "queue"]


def test_init_says_each_change(tmp_path):
    said = _init(_worker(tmp_path))

    assert 'wrangler.toml: main = "build/app/entry.py" (was "src/entry.py"): the build lays src/ out in build/app/ ' \
           "beside the manifest it writes" in said
    assert "added migrations/0001_schedules.sql: tickwork's migration" in said
    assert any(line.startswith("src/entry.py: Default has scheduled() and queue()") for line in said)


def test_init_run_again_changes_nothing(tmp_path):
    _init(_worker(tmp_path))
    before = _files(tmp_path)

    assert _init(tmp_path) == []
    assert _files(tmp_path) == before


def test_init_refuses_a_worker_without_a_d1_database(tmp_path):
    _worker(tmp_path, wrangler=WRANGLER.split("[[d1_databases]]")[0])

    refused = _refusal(tmp_path)

    assert "wrangler.toml binds no D1 database to keep schedule state in" in refused
    assert "npx wrangler d1 create" in refused


def test_init_refuses_a_build_command_of_another_tool(tmp_path):
    _worker(tmp_path, wrangler=WRANGLER + '\n[build]\ncommand = "make assets"\n')

    assert 'make it run `tickwork build` too (e.g. command = "make assets && tickwork build")' in _refusal(tmp_path)


def test_the_build_command_init_suggests_beside_another_tools_runs_the_workers_own_tickwork(tmp_path, monkeypatch):
    _worker(tmp_path, wrangler=WRANGLER + '\n[build]\ncommand = "make assets"\n')
    monkeypatch.setattr(sys, "argv", [str(tmp_path / ".venv" / "bin" / "tickwork"), "init"])

    assert '(e.g. command = "make assets && .venv/bin/tickwork build")' in _refusal(tmp_path)


def test_init_refuses_a_default_with_a_scheduled_of_its_own(tmp_path):
    own = ENTRY + "\n    async def scheduled(self, controller, env=None, ctx=None):\n        pass\n"
    _worker(tmp_path, entry=own)

    assert "src/entry.py:8: Default has its own scheduled(): call tickwork from it" in _refusal(tmp_path)


OWN_QUEUE = "\n    async def queue(self, batch, env=None, ctx=None):\n        for message in batch.messages:\n            message.ack()\n"


def test_init_refuses_a_default_with_a_queue_of_its_own_saying_how_to_keep_it_beside_tickworks(tmp_path):
    _worker(tmp_path, entry=ENTRY + OWN_QUEUE)

    refused = _refusal(tmp_path)

    assert "src/entry.py:8: Default has its own queue(): call tickwork from it" in refused
    assert ("to keep your consumer for your own queues, hand tickwork only the batches of its queues: "
            "`if batch.queue in APP.consumers: return await run_queue(APP, self.env, batch, self.ctx)` "
            "first") in refused


def test_a_queue_of_ones_own_handing_tickworks_batches_to_it_as_the_refusal_says_is_kept(tmp_path):
    dispatching = OWN_QUEUE.replace(
        "        for message", "        if batch.queue in APP.consumers:\n"
        "            return await run_queue(APP, self.env, batch, self.ctx)\n        for message")
    _worker(tmp_path, entry=ENTRY + dispatching)

    _init(tmp_path)

    entry = (tmp_path / "src" / "entry.py").read_text()
    assert entry.count("async def queue(") == 1 and "message.ack()" in entry


def _jsonc_worker(root, wrangler=TEMPLATE_WRANGLER_JSONC, name="wrangler.jsonc"):
    _worker(root)
    (root / "wrangler.toml").unlink()
    (root / name).write_text(wrangler)
    return root


def test_init_edits_a_wrangler_jsonc_main_build_command_and_minute_cron(tmp_path):
    _init(_jsonc_worker(tmp_path))

    wrangler = jsonc.loads((tmp_path / "wrangler.jsonc").read_text())
    assert wrangler["main"] == "build/app/entry.py"
    assert wrangler["build"]["command"].endswith("tickwork build")
    assert wrangler["build"]["watch_dir"] == "src"
    assert wrangler["triggers"]["crons"] == ["* * * * *"]


def test_init_keeps_every_comment_of_a_wrangler_jsonc(tmp_path):
    _init(_jsonc_worker(tmp_path))

    text = (tmp_path / "wrangler.jsonc").read_text()
    comments = [line.strip() for line in TEMPLATE_WRANGLER_JSONC.splitlines() if line.strip().startswith(("/", "*"))]
    assert comments and all(comment in text for comment in comments)


def test_init_writes_each_member_it_adds_to_a_wrangler_jsonc_on_a_line_of_its_own(tmp_path):
    _init(_jsonc_worker(tmp_path))

    lines = (tmp_path / "wrangler.jsonc").read_text().splitlines()
    assert [line for line in lines if '"build"' in line or '"triggers"' in line] == [
        '\t"build": { "command": "tickwork build", "watch_dir": "src" },',
        '\t"triggers": { "crons": ["* * * * *"] }',
    ]


def test_init_run_twice_on_a_wrangler_jsonc_changes_nothing_the_second_time(tmp_path):
    _init(_jsonc_worker(tmp_path))
    before = _files(tmp_path)

    assert _init(tmp_path) == []
    assert _files(tmp_path) == before


@pytest.mark.parametrize("name", ["wrangler.json", "wrangler.jsonc"])
def test_init_reads_a_wrangler_json_without_comments_too(tmp_path, name):
    plain = json.dumps(jsonc.loads(TEMPLATE_WRANGLER_JSONC), indent=2)
    _init(_jsonc_worker(tmp_path, plain, name))

    assert json.loads((tmp_path / name).read_text())["triggers"] == {"crons": ["* * * * *"]}


def test_init_adds_the_minute_cron_beside_a_wrangler_jsonc_s_own(tmp_path):
    own = TEMPLATE_WRANGLER_JSONC.replace('\t"observability"', '\t"triggers": {\n\t\t"crons": [\n\t\t\t"0 3 * * *", // nightly\n'
                                          '\t\t],\n\t},\n\t"observability"')
    _init(_jsonc_worker(tmp_path, own))

    text = (tmp_path / "wrangler.jsonc").read_text()
    assert jsonc.loads(text)["triggers"]["crons"] == ["0 3 * * *", "* * * * *"]
    assert "// nightly" in text


def test_init_refuses_a_wrangler_jsonc_whose_build_command_is_another_tools(tmp_path):
    own = TEMPLATE_WRANGLER_JSONC.replace('\t"observability"', '\t"build": { "command": "make assets" },\n\t"observability"')
    _jsonc_worker(tmp_path, own)

    assert "wrangler.jsonc's [build] command is \"make assets\"" in _refusal(tmp_path)


def test_init_refuses_a_wrangler_jsonc_that_does_not_parse_at_its_line(tmp_path):
    _jsonc_worker(tmp_path, '{\n  "name": "my-worker"\n  "main": "src/entry.py"\n}\n')

    assert 'wrangler.jsonc:3: not valid JSON (with comments): "," or "}" should be here' in _refusal(tmp_path)


def test_init_refuses_wrangler_jsonc_beside_wrangler_toml_naming_the_one_wrangler_reads(tmp_path):
    _worker(tmp_path)
    (tmp_path / "wrangler.jsonc").write_text(TEMPLATE_WRANGLER_JSONC)

    assert "wrangler reads wrangler.jsonc alone" in _refusal(tmp_path)


def test_a_migration_of_the_app_under_one_of_tickworks_names_is_refused(tmp_path):
    (tmp_path / "0001_schedules.sql").write_text("CREATE TABLE mine (x INTEGER);\n")

    with pytest.raises(ValueError, match="number the app's own from 0100"):
        sync_migrations(tmp_path, tmp_path)


def test_a_migration_tickwork_adds_later_is_copied_by_the_next_build(tmp_path):
    sync_migrations(tmp_path, tmp_path)
    (tmp_path / "0009_purge_counts.sql").unlink()

    assert sync_migrations(tmp_path, tmp_path) == ["added 0009_purge_counts.sql: tickwork's migration"]


def test_the_example_app_has_the_lines_init_adds_to_an_entry():
    entry = (ROOT / "src" / "entry.py").read_text()

    assert IMPORTS in entry
    assert textwrap.indent(METHODS, "    ", lambda line: line.strip() != "") in entry


def test_init_keeps_what_the_build_npm_and_the_local_d1_write_out_of_git(tmp_path):
    _worker(tmp_path)
    (tmp_path / ".gitignore").write_text(".venv\nnode_modules/\n")

    _init(tmp_path)

    assert (tmp_path / ".gitignore").read_text() == ".venv\nnode_modules/\nbuild/\npython_modules/\n.wrangler/\n"


def test_a_refused_init_exits_1_saying_why_on_stderr(tmp_path, capsys):
    from tickwork_tool.init import main

    _worker(tmp_path, wrangler=WRANGLER.split("[[d1_databases]]")[0])

    assert main(["--project", str(tmp_path), "--no-node"]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err.startswith("tickwork init: cannot add tickwork to this Worker, nothing changed:\n  wrangler.toml binds no D1")


def test_init_adds_its_command_to_a_build_table_the_worker_has_keeping_what_it_holds(tmp_path):
    _worker(tmp_path, wrangler=WRANGLER + '\n[build]  # the assets\nwatch_dir = "assets"\n')

    _init(tmp_path)

    text = (tmp_path / "wrangler.toml").read_text()
    assert tomllib.loads(text)["build"] == {"command": "tickwork build", "watch_dir": "assets"}
    assert "[build]  # the assets\n" in text


def test_init_refuses_a_build_written_as_dotted_keys_it_cannot_add_to(tmp_path):
    _worker(tmp_path, wrangler='build.watch_dir = "assets"\n' + WRANGLER)

    assert "wrangler.toml's build is written in a form tickwork cannot add its command to" in _refusal(tmp_path)


def test_init_keeps_the_crons_and_comments_of_a_triggers_list_the_worker_has(tmp_path):
    triggers = '\n[triggers]\ncrons = [\n  "0 3 * * *",  # the nightly report [UTC]\n]\n'
    _worker(tmp_path, wrangler=WRANGLER + triggers)

    _init(tmp_path)

    text = (tmp_path / "wrangler.toml").read_text()
    assert tomllib.loads(text)["triggers"]["crons"] == ["0 3 * * *", "* * * * *"]
    assert "  # the nightly report [UTC]\n" in text


def test_init_reads_main_written_as_a_literal_string(tmp_path):
    _worker(tmp_path, wrangler=WRANGLER.replace('main = "src/entry.py"', "main = 'src/entry.py'"))

    _init(tmp_path)

    assert tomllib.loads((tmp_path / "wrangler.toml").read_text())["main"] == "build/app/entry.py"


def test_init_indents_the_methods_it_adds_as_the_entry_does_with_tabs(tmp_path):
    _worker(tmp_path, entry=ENTRY.replace("        ", "\t\t").replace("    ", "\t"))

    _init(tmp_path)

    entry = (tmp_path / "src" / "entry.py").read_text()
    default = next(node for node in ast.parse(entry).body if isinstance(node, ast.ClassDef))
    assert [method.name for method in default.body] == ["fetch", "scheduled", "queue"]
    assert "\n\tasync def scheduled(self, controller, env=None, ctx=None):\n\t\tawait run_cron_tick(" in entry


def test_init_adds_its_imports_after_the_entrys_docstring(tmp_path):
    _worker(tmp_path, entry='"""My Worker."""\n\nclass Default(WorkerEntrypoint):\n    async def fetch(self, request):\n        pass\n')

    _init(tmp_path)

    assert ast.get_docstring(ast.parse((tmp_path / "src" / "entry.py").read_text())) == "My Worker."


def test_init_refuses_a_configuration_that_is_not_toml_naming_the_file(tmp_path):
    _worker(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[project\n")

    assert _refusal(tmp_path).startswith("pyproject.toml is not valid TOML")


def test_a_scheduled_of_the_workers_own_calling_tickwork_as_the_refusal_says_gets_the_imports_and_queue(tmp_path):
    own = ENTRY + "\n    async def scheduled(self, controller, env=None, ctx=None):\n" \
                  "        await self.nightly()\n        await run_cron_tick(APP, self.env, controller)\n"
    _worker(tmp_path, entry=own)

    _init(tmp_path)

    entry = (tmp_path / "src" / "entry.py").read_text()
    default = next(node for node in ast.parse(entry).body if isinstance(node, ast.ClassDef))
    assert IMPORTS in entry
    assert [method.name for method in default.body] == ["fetch", "scheduled", "queue"]
    assert "await self.nightly()\n        await run_cron_tick(APP, self.env, controller)\n" in entry


def test_init_notes_the_apps_own_migrations_numbered_among_tickworks_and_renames_none(tmp_path):
    _worker(tmp_path)
    (tmp_path / "migrations").mkdir()
    (tmp_path / "migrations" / "0001_users.sql").write_text("CREATE TABLE users (id INTEGER);\n")

    said = _init(tmp_path)

    assert any(line.startswith("note: the app's own 0001_users.sql numbered among tickwork's migrations (0001 to 0099)") for line in said)
    assert (tmp_path / "migrations" / "0001_users.sql").is_file() and (tmp_path / "migrations" / "0001_schedules.sql").is_file()
