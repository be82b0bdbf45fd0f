"""The reference, made from the code at each docs build: the declarations' items and the settings
(tickwork_build), the problem codes (tickwork.codes), the commands and flags (their own argparse
parsers), the console's pages and actions (console/routes.py) and the Python API (signatures and
docstrings). Each generator returns Markdown, and calls `missing` for what the code has and the
page cannot describe: the hook logs it as a warning, which fails the strict build."""

import argparse
import ast
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

Missing = Callable[[str], None]


def cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(head: tuple[str, ...], rows: list[tuple[object, ...]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def code_link(code: str) -> str:
    return f"[`{code}`](problems.md#{code})"


# -- declarations -------------------------------------------------------------------------------

def declarations(missing: Missing) -> str:
    from tickwork import declare
    from tickwork_build import keys, purges, schedules

    kinds: dict[str, dict[str, object]] = {kind: dict(holds) for kind, holds in schedules.ITEMS.items()}
    kinds["purge"] = {key: schedules.REQUIRED for key in purges.ITEMS}
    out = []
    for kind, holds in kinds.items():
        rows = []
        for key, default in holds.items():
            described = keys.ITEMS.get(key)
            if described is None:
                missing(f"the {kind}'s item `{key}:` is not described in tickwork_build/keys.py ITEMS")
                continue
            shown = "required" if default is schedules.REQUIRED else "unset" if default is None else f"`{default}`"
            rows.append((f"`{key}:`", shown, described.type, described.means, code_link(described.code)))
        out.append(f"## `{kind}` {{#{kind}}}\n")
        decorator = getattr(declare, kind)
        out.append(f"In Python: `tickwork.{kind}{inspect.signature(decorator)}`.\n")
        out.append(table(("item", "default", "type", "what it means", "a bad value is"), rows))
    return "\n".join(out)


# -- settings ---------------------------------------------------------------------------------

def read_in_project() -> set[str]:
    """The `[tool.tickwork]` keys the build reads: `tickwork.get("...")` in project.py, the
    directories, the store and the console's keys."""
    from tickwork_build import console, project, settings

    tree = ast.parse(inspect.getsource(project))
    read = {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "tickwork"
            and node.args and isinstance(node.args[0], ast.Constant)}
    return read | set(settings._DIRECTORIES) | {"store"} | set(console.KEYS)


def settings_page(missing: Missing) -> str:
    from tickwork_build import keys, migrations, output, project, settings

    defaults = {key: default for key, (default, _) in settings._DIRECTORIES.items()}
    defaults["d1_statements_per_tick"] = str(project.DEFAULT_STATEMENTS_PER_TICK)
    defaults["retention"] = str(project.Project.__dataclass_fields__["retention"].default)
    defaults["d1_databases[].migrations_dir"] = migrations.DEFAULT_DIRECTORY
    defaults["triggers.crons"] = f'["{output.MINUTE_CRON}"]'
    described = {setting.key for setting in keys.SETTINGS if setting.file == keys.PYPROJECT}
    for key in sorted(read_in_project() - described):
        missing(f"the setting `{key}` of [tool.tickwork] is not described in tickwork_build/keys.py SETTINGS")
    for key in settings._D1_MENDS:
        if f"d1_databases[].{key}" not in {setting.key for setting in keys.SETTINGS}:
            missing(f"the D1 database's `{key}` is not described in tickwork_build/keys.py SETTINGS")
    out = []
    for file, anchor in ((keys.PYPROJECT, "tool-tickwork"), (keys.WRANGLER, "wrangler")):
        rows = []
        for setting in keys.SETTINGS:
            if setting.file == file:
                default = defaults.get(setting.key, setting.default)
                rows.append((f"`{setting.key}`", f"`{default}`" if default else "unset", setting.type,
                             setting.means, code_link(setting.code)))
        out.append(f"## {file} {{#{anchor}}}\n")
        out.append(table(("key", "default", "type", "what it means", "a bad value is"), rows))
    return "\n".join(out)


# -- problem codes ------------------------------------------------------------------------------

FAMILIES = {
    "schedule": "Declarations and items handed over", "items": "Declarations and items handed over",
    "purge": "Purges", "declaration": "Declarations and items handed over",
    "domain": "Declarations and items handed over", "deployable": "The Workers target", "settings": "Settings",
    "event": "Events and consumers", "consumer": "Events and consumers", "backfill": "Backfills",
    "remake": "Remakes and terminations of a run", "terminate": "Remakes and terminations of a run",
}


def problems(missing: Missing) -> str:
    from tickwork.codes import CODES

    groups: dict[str, list[tuple[object, ...]]] = {}
    for code, entry in CODES.items():
        family = FAMILIES.get(code.split(".")[0])
        if family is None:
            missing(f"the code `{code}` belongs to no family of generate.FAMILIES")
            continue
        groups.setdefault(family, []).append(
            (f'<a id="{code}"></a>`{code}`', entry.where, entry.means, entry.mend))
    out = []
    for family, rows in groups.items():
        out.append(f"## {family}\n")
        out.append(table(("code", "met at", "what it means", "mend"), rows))
    return "\n".join(out)


def outcomes(missing: Missing) -> str:
    from tickwork import model

    said = ", ".join(f"`{outcome.value}`" for outcome in model.Outcome)
    rows = [(f'<a id="{code.value}"></a>`{code.value}`', *_comment_of(model, "Code", code.name, missing).split(": ", 1))
            for code in model.Code]
    return (f"A run's outcome is one of {said}. A run skipped or failed by tickwork carries one of these codes; "
            "an action's own failure carries the code it raised with `ActionError`.\n\n"
            + table(("code", "outcome", "what it means"), rows))


def _comment_of(module: Any, owner: str, name: str, missing: Missing) -> str:
    """The `# ...` comment on `name = ...` in class `owner` of `module`: what the value means."""
    for line in inspect.getsource(getattr(module, owner)).splitlines():
        stripped = line.strip()
        if stripped.startswith(f"{name} =") and "#" in stripped:
            return stripped.split("#", 1)[1].strip()
    missing(f"{owner}.{name} has no comment saying what it means")
    return ""


# -- commands ---------------------------------------------------------------------------------

def _flags(parser: argparse.ArgumentParser) -> list[tuple[object, ...]]:
    rows = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            continue
        name = ", ".join(f"`{flag}`" for flag in action.option_strings) or f"`{action.dest}`"
        if action.choices:
            value = ", ".join(f"`{choice}`" for choice in action.choices)
        elif action.nargs == 0:
            value = ""
        else:
            value = f"`{action.metavar or action.dest.upper()}`"
        default = action.default
        shown = "" if default in (None, False, argparse.SUPPRESS) or action.nargs == 0 else f"`{default}`"
        help_text = (action.help or "") % {"default": default, "prog": parser.prog}
        rows.append((name, value, shown, help_text))
    return rows


def _parser_section(title: str, parser: argparse.ArgumentParser, missing: Missing) -> str:
    out = [f"## `{title}` {{#{title.replace(' ', '-')}}}\n", "```\n" + parser.format_usage().strip() + "\n```\n"]
    if parser.description:
        out.append(parser.description + "\n")
    rows = _flags(parser)
    for row in rows:
        if not row[3]:
            missing(f"`{title}`'s {row[0]} has no help")
    if rows:
        out.append(table(("argument", "value", "default", "what it does"), rows))
    return "\n".join(out)


def commands(missing: Missing) -> str:
    from tickwork_cli import cli
    from tickwork_tool import command, init

    out = ["## `tickwork` {#tickwork}\n", "```\n" + command.USAGE.strip() + "\n```\n"]
    out.append(_parser_section("tickwork init", init.parser(), missing))
    out.append(_parser_section("tickwork build", command.build_parser(), missing))
    for verb, usage in command.HOST_USAGE.items():
        out.append(f"## `tickwork {verb}` {{#tickwork-{verb}}}\n")
        out.append("```\n" + usage.strip() + "\n```\n")
    top = cli.parser()
    verbs = next(action for action in top._actions if isinstance(action, argparse._SubParsersAction))
    helps = {choice.dest: choice.help for choice in verbs._choices_actions}
    for verb, parser in verbs.choices.items():
        section = _parser_section(f"tickwork {verb}", parser, missing)
        head, _, rest = section.partition("\n")
        said = helps.get(verb) or ""
        if not said:
            missing(f"`tickwork {verb}` has no help")
        out.append(f"{head}\n\n{said[:1].upper() + said[1:]}.\n{rest}" if said else section)
    return "\n".join(out)


# -- the console ------------------------------------------------------------------------------

# What each page and action is for, where its handler has no docstring of its own.
PAGE_WORDS = {
    "": "The overview: ticks, failures in the last 24 hours, what needs attention.",
    "/schedules": "Every schedule, declared and handed over, with its state; search and filter.",
    "/schedule": "One schedule: its timing and why it runs when it does, its next due times, its runs.",
    "/runs": "The runs across schedules, newest first, by time range, outcome and name.",
    "/deliveries": "The deliveries of events: pending, failed and outcome_unknown (all with `all=1`).",
    "/log": "The operator log: every change made from the command or the console, with who made it.",
}
ACTION_WORDS = {
    "/schedule/pause": "Pause the schedule: from the next tick each due time is skipped (recorded `paused`).",
    "/schedule/resume": "Resume it: it runs again from the next tick, on the timing it kept.",
    "/schedule/run": "Ask for a run by hand: the next tick makes it.",
    "/schedule/cancel": "Cancel a schedule handed over at run time: no call is made for it again.",
    "/delivery/retry": "Make a failed delivery pending again: the next tick's sweep sends it.",
    "/delivery/dismiss": "Dismiss a delivery: it is never sent again.",
    "/delivery/cancel": "Cancel a pending delivery.",
    "/schedule/backfill": "Ask for a backfill of a schedule's due times in a past range (a dry run first).",
    "/backfill/cancel": "Cancel a pending backfill.",
}


def _query_of(handler: Any, namespace: dict) -> list[tuple[object, ...]]:
    """The query parameters a page's handler reads, as its calls of `_one_of`, `_text`, `_keys`
    and `query.get` name them, with the values `_one_of` allows and its default."""
    rows = []
    source = textwrap.dedent(inspect.getsource(handler))
    calls = [node for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Call)]
    for node in sorted(calls, key=lambda call: (call.lineno, call.col_offset)):
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        args = node.args
        if name in ("_one_of", "_text", "_keys") and len(args) >= 2 and isinstance(args[1], ast.Constant):
            allowed, default = "", ""
            if name == "_one_of":
                allowed = ", ".join(f"`{value}`" for value in eval(ast.unparse(args[2]), namespace))  # noqa: S307
                default = eval(ast.unparse(args[3]), namespace)  # noqa: S307
            what = {"_text": "text", "_keys": "a cursor the page writes"}.get(name, allowed)
            rows.append((f"`{args[1].value}`", what, f"`{default}`" if default else ""))
        elif name == "get" and args and isinstance(args[0], ast.Constant) and ast.unparse(node.func) == "query.get":
            rows.append((f"`{args[0].value}`", "", ""))
    return rows


def _act_routes(routes: Any) -> list[tuple[str, str, str | None]]:
    """The actions: `/schedule/<verb>` and `/delivery/<verb>`, and the routes `_act` names in an
    `if route == "...":`, each with the docstring of the function that branch returns the answer of."""
    found: list[tuple[str, str, str | None]] = [(f"/schedule/{verb}", "name", None) for verb in routes.SCHEDULE_VERBS]
    found += [(f"/delivery/{verb}", "id", None) for verb in routes.DELIVERY_VERBS]
    for node in ast.walk(ast.parse(textwrap.dedent(inspect.getsource(routes._act)))):
        test = node.test if isinstance(node, ast.If) else None
        if (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "route"
                and isinstance(test.comparators[0], ast.Constant)):
            called = [call.func.id for call in ast.walk(node.body[0])
                      if isinstance(call, ast.Call) and isinstance(call.func, ast.Name)]
            answering = getattr(routes, called[0]) if called and hasattr(routes, called[0]) else None
            fields = _form_fields(node) + (_form_fields(ast.parse(textwrap.dedent(inspect.getsource(answering))))
                                           if answering else [])
            found.append((test.comparators[0].value, ", ".join(dict.fromkeys(fields)), inspect.getdoc(answering)
                          if answering else None))
    return found


def _form_fields(tree: ast.AST) -> list[str]:
    """The fields a form posts, as `form.get("...")` reads them."""
    return [node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "form.get" and node.args
            and isinstance(node.args[0], ast.Constant) and node.args[0].value != "back"]


def console(missing: Missing) -> str:
    from tickwork.console import routes

    out = [f"The console is served under the app's `console` prefix (the local host's: `{routes.DEFAULT_PREFIX}`); "
           "each path below follows it.\n", "## Pages {#pages}\n"]
    for route, handler in routes.PAGES.items():
        said = inspect.getdoc(handler) or PAGE_WORDS.get(route)
        if not said:
            missing(f"the console's page `{route or '/'}` is described neither by its handler's docstring nor "
                    "in generate.PAGE_WORDS")
        out.append(f"### `GET {route or '/'}`\n\n{said or ''}\n")
        query = _query_of(handler, vars(routes))
        if query:
            out.append(table(("query", "values", "default"), query))
    out.append(f"Pages show {routes.PAGE} rows at a time, with a link to the next page (keyset paging).\n")
    out.append("## Actions {#actions}\n")
    out.append("Each is a `POST` of a form carrying the page's form token (`csrf`) and `back`, the page to "
               "return to; each change is logged with who made it.\n")
    rows = []
    for route, field, doc in _act_routes(routes):
        said = doc or ACTION_WORDS.get(route)
        if said is None:
            missing(f"the console's action `{route}` is described neither by the docstring of the function "
                    "answering it nor in generate.ACTION_WORDS")
        rows.append((f"`POST {route}`", ", ".join(f"`{name}`" for name in field.split(", ")) if field else "",
                     said or ""))
    out.append(table(("action", "names", "what it does"), rows))
    return "\n".join(out)


# -- the Python API -----------------------------------------------------------------------------

def _signature(title: str, obj: Any) -> str:
    """`title(...)`, a parameter a line where it would not fit a line of the page."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return title
    if len(title + str(signature)) <= 88:
        return title + str(signature)
    returns = "" if signature.return_annotation is inspect.Signature.empty else \
        f" -> {inspect.formatannotation(signature.return_annotation)}"
    lines, star = [], False
    for parameter in signature.parameters.values():
        if parameter.kind is parameter.KEYWORD_ONLY and not star:
            lines.append("*")
        star = star or parameter.kind in (parameter.KEYWORD_ONLY, parameter.VAR_POSITIONAL)
        lines.append(str(parameter))
    return title + "(\n" + "".join(f"    {line},\n" for line in lines) + ")" + returns


def _member(title: str, obj: Any) -> str:
    signature = _signature(title, obj)
    doc = inspect.getdoc(obj) or ""
    return f"### `{title}`\n\n```python\n{signature}\n```\n\n{doc}\n"


def _members_of(prefix: str, cls: type) -> list[str]:
    out = []
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            doc = inspect.getdoc(value) or ""
            out.append(f"### `{prefix}.{name}`\n\n{doc}\n")
        elif callable(value):
            out.append(_member(f"{prefix}.{name}", value))
    return out


def python_api(missing: Missing) -> str:
    import tickwork
    from tickwork import context, per_item, testing

    out = ["## `tickwork` {#tickwork}\n"]
    instances = {"clock": context.Clock, "call": context.CallInput, "handled": context.Handled,
                 "on_success": context.OnSuccess, "env": context.Env, "items": per_item.Items}
    for name in tickwork.__all__:
        value = getattr(tickwork, name)
        if name in instances:
            continue
        out.append(_member(f"tickwork.{name}", value))
    for name, cls in instances.items():
        if getattr(tickwork, name, None) is None:
            missing(f"tickwork.{name} is documented but not exported")
        out.append(f"## `tickwork.{name}` {{#{name}}}\n\n{inspect.getdoc(cls) or ''}\n")
        out += _members_of(name, cls)
    out.append("## `tickwork.testing` {#testing}\n\n" + (inspect.getdoc(testing) or "") + "\n")
    for name, value in vars(testing).items():
        if not name.startswith("_") and getattr(value, "__module__", None) == testing.__name__ and callable(value):
            out.append(_member(f"testing.{name}", value))
    return "\n".join(out)


GENERATORS: dict[str, Callable[[Missing], str]] = {
    "declarations": declarations, "settings": settings_page, "problems": problems, "outcomes": outcomes,
    "commands": commands, "console": console, "python-api": python_api,
}
