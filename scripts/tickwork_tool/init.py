"""`tickwork init`: adds tickwork to the Worker in the current folder, saying each change.

It first checks everything it needs and refuses, changing nothing, where it cannot do its part
(no wrangler.toml or wrangler.jsonc, no D1 database to keep schedule state in, a `[build]` command of another
tool, a `Default` with a `scheduled` of its own, ...). Run again, it changes nothing it did.
The Worker's `main` moves to build/app/, where the build lays the source out beside the
manifest it writes; the source itself keeps no generated file.
"""

import argparse
import ast
import re
import shutil
import sys
import tomllib
from pathlib import Path

from tickwork_build import jsonc
from tickwork_build.output import cron_trigger_problems, ensure_cron_trigger
from tickwork_build.problems import BuildFailed, Problem
from tickwork_build.project import JSON_SUFFIXES, config_name, load_project, resolve_store

from . import node
from .shipped import migrations
from .vendoring import sync_migrations

BUILT = Path("build") / "app"
# The lines a Worker's entry needs (the example's src/entry.py has them too).
IMPORTS = """import tickwork_manifest
from tickwork.adapters.workers import run_cron_tick, run_queue
from tickwork.app import App

APP = App.from_manifest(tickwork_manifest)
"""
METHODS = """async def scheduled(self, controller, env=None, ctx=None):
    await run_cron_tick(APP, self.env, controller, self.ctx)

async def queue(self, batch, env=None, ctx=None):
    await run_queue(APP, self.env, batch, self.ctx)
"""
HANDLERS = dict(zip(("scheduled", "queue"), METHODS.split("\n\n"), strict=True))  # each one's lines in METHODS
# run_queue retries a batch of a queue the app declares no consumer for: a Worker's own consumer
# goes on beside tickwork's by handing it only the batches of tickwork's queues.
BESIDE = {"queue": "; to keep your consumer for your own queues, hand tickwork only the batches of its queues: "
                   "`if batch.queue in APP.consumers: return await run_queue(APP, self.env, batch, self.ctx)` first"}
MAIN = re.compile(r"""(?m)^main\s*=\s*(["'])([^"'\n]*)\1""")
BUILD = re.compile(r"(?m)^\[build\][ \t]*(#.*)?$")
MADE = ("build/", "python_modules/", "node_modules/", ".wrangler/")


class Refused(Exception):
    """What init cannot do, and how to mend it."""


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tickwork init", description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", type=Path, default=Path("."), help="the Worker's folder (default: here)")
    parser.add_argument("--no-node", action="store_true", help="leave installing the host's Node side to first use")
    return parser


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        changes = init(args.project.resolve(), node_side=not args.no_node)
    except (Refused, ValueError, node.NodeMissing) as error:
        print(f"tickwork init: {error}", file=sys.stderr)
        return 1
    except BuildFailed as failed:
        for problem in failed.problems:
            print(f"tickwork init: {problem}", file=sys.stderr)
        return 1
    if not changes:
        print("tickwork init: nothing to change, tickwork is already in this Worker")
    else:
        print("tickwork init: done; declare schedules in the app's domains (tickwork's docs: \"Declare schedules\"), "
              "then run tickwork dev")
    return 0


def init(root: Path, node_side: bool = True, say=print) -> list[str]:
    """Checks, then changes; each change said as it is made, and returned."""
    plan = _plan(root, node_side)
    changes = []

    def did(change: str) -> None:
        changes.append(change)
        say(change)

    pyproject = root / "pyproject.toml"
    if "tickwork" not in tomllib.loads(pyproject.read_text()).get("tool", {}):
        table = f'\n[tool.tickwork]\nsource = "{plan["source"]}"   # the Worker\'s code, its entry at the top\n' \
                f'app = "{plan["source"]}/app"   # the app package: its domains are ' \
                f'{plan["source"]}/app/domains/<domain>/\n'
        pyproject.write_text(pyproject.read_text().rstrip("\n") + "\n" + table)
        did(f"pyproject.toml: added [tool.tickwork] (source = \"{plan['source']}\", app = \"{plan['source']}/app\")")
    project = load_project(root)
    for package in (project.app, project.app / "domains"):
        if not (package / "__init__.py").exists():
            package.mkdir(parents=True, exist_ok=True)
            (package / "__init__.py").write_text("")
            did(f"{project.relative(package / '__init__.py')}: added, the app package (domains go in "
                f"{project.relative(project.app / 'domains')}/<domain>/)")
    wrangler = root / plan["config"]
    json = wrangler.name.endswith(JSON_SUFFIXES)
    text = wrangler.read_text()
    main_now = jsonc.loads(text)["main"] if json else MAIN.search(text).group(2)
    built_main = (BUILT / plan["entry"]).as_posix()
    if main_now != built_main:
        text = (jsonc.set_value(text, ("main",), built_main) if json
                else MAIN.sub(f'main = "{built_main}"', text, count=1))
        wrangler.write_text(text)
        did(f'{wrangler.name}: main = "{built_main}" (was "{main_now}"): the build lays {plan["source"]}/ out '
            f"in {BUILT.as_posix()}/ beside the manifest it writes")
    if plan["build_command"] is not None:
        adding = _with_json_build_command if json else _with_build_command
        text = adding(text, plan["build_command"], plan["source"])
        wrangler.write_text(text)
        did(f'{wrangler.name}: [build] command = "{plan["build_command"]}", so `wrangler deploy` builds first')
    if ensure_cron_trigger(wrangler):
        did(f'{wrangler.name}: [triggers] crons has "* * * * *", the minute tick')
    for change in sync_migrations(plan["migrations"], root):
        did(change)
    sharing = sorted(path.name for path in plan["migrations"].glob("00[0-9][0-9]_*.sql")
                     if path.name not in {own.name for own in migrations()})
    if sharing:
        say(f"note: the app's own {', '.join(sharing)} numbered among tickwork's migrations (0001 to 0099); "
            "wrangler applies "
            "each by its name, so all apply, but number the app's next ones from 0100 (rename what "
            "`wrangler d1 migrations create` numbers below it): tickwork's newer ones take numbers up to 0099")
    entry = root / plan["source"] / plan["entry"]
    for change in _add_to_entry(entry, root):
        did(change)
    for change in _ignore_what_is_made(root):
        did(change)
    if node_side:
        node.install(root, say=did)
    return changes


def _ignore_what_is_made(root: Path) -> list[str]:
    """What the build, the vendoring, npm and the local D1 write is kept out of git."""
    ignore = root / ".gitignore"
    text = ignore.read_text() if ignore.exists() else ""
    listed = {line.strip().strip("/") for line in text.splitlines()}
    absent = [name for name in MADE if name.strip("/") not in listed]
    if not absent:
        return []
    ignore.write_text(text + ("\n" if text and not text.endswith("\n") else "") + "".join(f"{n}\n" for n in absent))
    return [f".gitignore: added {', '.join(absent)}, which tickwork build, npm and tickwork dev write"]


def _plan(root: Path, node_side: bool) -> dict:
    """What init will do, or Refused with everything it cannot."""
    pyproject, name = root / "pyproject.toml", config_name(root)
    if isinstance(name, Problem):
        raise Refused(f"cannot add tickwork to this Worker, nothing changed:\n  {name}")
    wrangler = root / name
    if not wrangler.exists():
        raise Refused(f"{root} has no wrangler.toml (nor wrangler.jsonc, wrangler.json): run tickwork init in the "
                      "Worker's folder")
    if not pyproject.exists():
        raise Refused(f"{root} has no pyproject.toml: a Python Worker's folder has one "
                      "(uv init, or pywrangler's template)")
    text = wrangler.read_text()
    json = name.endswith(JSON_SUFFIXES)
    config, settings = _read(wrangler), _read(pyproject).get("tool", {}).get("tickwork", {})
    refusals = []
    if json:
        main = config.get("main") if isinstance(config.get("main"), str) and config["main"] else None
    else:
        found = MAIN.search(text)
        main = found.group(2) if found and found.group(2) == config.get("main") else None
    if main is None:
        refusals.append(f'{name} has no top-level "main" naming the Worker\'s entry: add one, e.g. '
                        '"main": "src/entry.py"' if json else 'wrangler.toml has no top-level `main = "..."` line: '
                        'name the Worker\'s entry, e.g. main = "src/entry.py"')
        source, entry = settings.get("source", "src"), "entry.py"
    elif Path(main).parent == BUILT:
        source, entry = settings.get("source", "src"), Path(main).name
    else:
        source, entry = settings.get("source", Path(main).parent.as_posix()), Path(main).name
    if main is not None and not (root / source / entry).is_file():
        refusals.append(f"the Worker's entry {source}/{entry} ({name}'s main) does not exist")
    try:
        store, why = resolve_store(load_project(root))
    except BuildFailed as failed:
        raise Refused("cannot add tickwork to this Worker, nothing changed:\n  "
                      + "\n  ".join(map(str, failed.problems))) from None
    migrations = root / "migrations"
    if store is None:
        refusals.append(f"{why}: tickwork keeps its schedules' state in D1; add a [[d1_databases]] binding "
                        '(`npx wrangler d1 create NAME` prints one), '
                        'or name one in [tool.tickwork] store = "<binding>"')
    else:
        binding = next(b for b in config.get("d1_databases", []) if b.get("binding") == store)
        migrations = root / binding.get("migrations_dir", "migrations")
    build_table = config.get("build", {})
    build = build_table.get("command") if isinstance(build_table, dict) else None
    if build is not None and not (isinstance(build, str) and "tickwork build" in build):
        refusals.append(f'{name}\'s [build] command is "{build}": make it run `tickwork build` too '
                        f'(e.g. command = "{build} && {_build_command(root)}"), then run tickwork init again')
    adding = _with_json_build_command if json else _with_build_command
    if build is None and adding(text, "tickwork build", source) is None:
        refusals.append(f"{name}'s build is written in a form tickwork cannot add its command to: "
                        + ('make "build" an object: "build": { "command": "..." }' if json
                           else "put its keys under a [build] table"))
    if cron_trigger_problems(wrangler):
        refusals.append(f"{name}'s triggers are written in a form tickwork cannot add the minute cron to: "
                        + ('write "triggers": { "crons": ["* * * * *"] }' if json
                           else 'put crons = ["* * * * *"] under a [triggers] table'))
    if main is not None and (root / source / entry).is_file():
        refusals += _entry_refusals(root / source / entry, f"{source}/{entry}")
    if node_side and node.missing(root) and shutil.which("npm") is None:
        refusals.append("npm is not installed, and the local host needs wrangler, Miniflare and Pyodide from it: "
                        "install Node.js 20 (which brings npm), or run tickwork init --no-node")
    if refusals:
        raise Refused("cannot add tickwork to this Worker, nothing changed:\n  " + "\n  ".join(refusals))
    return {"source": source, "entry": entry, "migrations": migrations, "config": name,
            "build_command": None if build is not None else _build_command(root)}


def _read(path: Path) -> dict:
    try:
        if path.name.endswith(JSON_SUFFIXES):
            read = jsonc.loads(path.read_text())
            if not isinstance(read, dict):
                raise jsonc.JsoncError("the configuration is not an object ({ ... })", 1)
            return read
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as error:
        raise Refused(f"{path.name} is not valid TOML: {error}") from None
    except jsonc.JsoncError as error:
        raise Refused(f"{path.name}:{error.line}: not valid JSON (with comments): {error.reason}") from None


def _with_json_build_command(text: str, command: str, source: str) -> str | None:
    """wrangler.jsonc's text with `command` in its "build", beside what it holds; None where
    "build" is not an object."""
    build = jsonc.loads(text).get("build")
    if build is None:
        return jsonc.add_member(text, (), "build", {"command": command, "watch_dir": source})
    if not isinstance(build, dict):
        return None
    text = jsonc.add_member(text, ("build",), "command", command)
    return text if "watch_dir" in build else jsonc.add_member(text, ("build",), "watch_dir", source)


def _with_build_command(text: str, command: str, source: str) -> str | None:
    """wrangler.toml's text with `command` in its [build] table, beside what the table holds;
    None where the file says its build in a form this cannot add to (an inline table, dotted keys)."""
    build = tomllib.loads(text).get("build", {})
    lines = f'command = "{command}"' + ("" if "watch_dir" in build else f'\nwatch_dir = "{source}"')
    header = BUILD.search(text)
    if header is None:
        text = text.rstrip("\n") + f"\n\n[build]\n{lines}\n"
    else:
        text = text[:header.end()] + "\n" + lines + text[header.end():]
    try:
        return text if tomllib.loads(text).get("build", {}).get("command") == command else None
    except tomllib.TOMLDecodeError:
        return None


def _build_command(root: Path) -> str:
    """This very command, from the project's root where it lives in it (its .venv)."""
    command = Path(sys.argv[0]).absolute()
    try:
        return f"{command.relative_to(root).as_posix()} build"
    except ValueError:
        return "tickwork build"


def _default(tree: ast.Module) -> ast.ClassDef | None:
    return next((node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == "Default"), None)


def _handlers(default: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
    """Default's own `scheduled` and `queue`."""
    return {f.name: f for f in default.body
            if isinstance(f, ast.AsyncFunctionDef | ast.FunctionDef) and f.name in HANDLERS}


def _tickworks_call(handler: str) -> str:
    """`await run_cron_tick(APP, self.env, controller, self.ctx)`: what the handler calls of tickwork."""
    return HANDLERS[handler].splitlines()[1].strip()


def _calls_tickwork(handler: str, method: ast.AST) -> bool:
    called = _tickworks_call(handler).removeprefix("await ").split("(")[0]
    return any(isinstance(node, ast.Call) and getattr(node.func, "id", None) == called for node in ast.walk(method))


def _entry_refusals(path: Path, name: str) -> list[str]:
    text = path.read_text()
    try:
        tree = ast.parse(text)
    except SyntaxError as error:
        return [f"{name}:{error.lineno}: the entry does not parse: {error.msg}"]
    default = _default(tree)
    if default is None:
        return [f"{name} has no `class Default(WorkerEntrypoint)`: the Worker's handlers are its methods"]
    if default.body[0].lineno == default.lineno:
        return [f"{name}:{default.lineno}: Default's body is on its class line: write it on lines of its own"]
    return [f"{name}:{method.lineno}: Default has its own {handler}(): call tickwork from it "
            f"({_tickworks_call(handler)}), then run tickwork init again" + BESIDE.get(handler, "")
            for handler, method in _handlers(default).items() if not _calls_tickwork(handler, method)]


def _add_to_entry(path: Path, root: Path) -> list[str]:
    """The imports and APP where the entry lacks them, and the handlers Default lacks."""
    text = path.read_text()
    tree = ast.parse(text)
    default = _default(tree)
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    name, said = path.relative_to(root).as_posix(), []
    first = default.body[0]
    indent = lines[first.lineno - 1][:first.col_offset]  # the entry's own, tabs or spaces
    missing = [handler for handler in HANDLERS if handler not in _handlers(default)]
    if missing:
        methods = "".join(indent + (indent + line[4:] if line.startswith("    ") else line) if line.strip() else "\n"
                          for line in "\n\n".join(HANDLERS[h] for h in missing).splitlines(keepends=True))
        lines.insert(default.end_lineno, "\n" + methods.rstrip("\n") + "\n")
        added = " and ".join(f"{handler}()" for handler in missing)
        said.append(f"{name}: Default has {added}, calling tickwork; its other handlers are as they were")
    if IMPORTS.splitlines()[-1] not in text:
        imports = [node for node in tree.body
                   if isinstance(node, ast.Import | ast.ImportFrom) and node.lineno < default.lineno]
        docstring = tree.body[0].end_lineno if ast.get_docstring(tree, clean=False) is not None else 0
        after = max((node.end_lineno for node in imports), default=docstring)
        lines.insert(after, ("\n" if after else "") + IMPORTS)
        said.insert(0, f"{name}: imports tickwork and makes APP from the build's manifest (after line {after})")
    if said:
        path.write_text("".join(lines))
    return said
