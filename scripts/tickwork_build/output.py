"""What the build writes: the manifest module the Worker imports, and the Wrangler cron trigger."""

import json
import re
import tomllib
from pathlib import Path

from tickwork.kinds.skip_dates import with_lists

from . import jsonc
from .problems import BuildFailed, Problem
from .schedules import Spec
from .settings import line_of

MANIFEST = "tickwork_manifest.py"
MINUTE_CRON = "* * * * *"


def manifest_source(store: str | None, specs: list[Spec], statements_per_tick: int, queues=None,
                    retention_ms: int | None = None, alerts: str | None = None, console: dict | None = None,
                    version_metadata: object = None, wakes: str | None = None,
                    metrics: object = None) -> str:
    lines = [
        '"""Written by `make build` from the app\'s declarations; do not edit."""',
        "",
        "import json",
        "",
        f"STORE = {store!r}",
        f"STATEMENTS_PER_TICK = {statements_per_tick!r}",
        f"PRODUCERS = {dict(queues.producers) if queues else {}!r}",
        f"QUEUES_BOUND = {bool(queues and queues.bound)!r}",
        f"RETENTION_MS = {retention_ms or 30 * 86_400_000!r}",
        f"ALERTS = {alerts!r}",
        f"CONSOLE = {console!r}",
        f"VERSION_METADATA = {version_metadata if isinstance(version_metadata, str) else None!r}",
        f"WAKES = {wakes!r}",
        f"METRICS = {metrics if isinstance(metrics, str) else None!r}",
        "",
        *schedules_source(specs),
        "",
    ]
    lines.append("CONSUMERS = (")
    for entry in (queues.consumers if queues else []):
        lines.append(f"    {entry!r},")
    lines.append(")")
    return "\n".join(lines) + "\n"


def schedules_source(specs: list[Spec]) -> list[str]:
    """SCHEDULES as JSON, an entry a line, parsed at import: written as Python literals, 10,000
    entries took an isolate 130 MB to compile (its limit is 128 MB); as one string, 36 MB. The
    raw string holds JSON safely: every quote inside a JSON string is escaped, so no three meet.
    The named lists of skip dates are written once, as DATES, and put back into each entry at
    import, shared (kinds.skip_dates.with_lists): 30,000 calendars naming a list of 20 holidays
    imported to 67 MB, each with a copy (24 MB shared)."""
    lists = _named_lists(specs)
    written = [_sharing(spec.manifest_entry(), lists) for spec in sorted(specs, key=lambda spec: spec.name)]
    entries = ",\n".join(json.dumps(entry) for entry in written)
    source = [f'SCHEDULES = tuple(json.loads(r"""[\n{entries}\n]"""))' if entries else "SCHEDULES = ()"]
    if not lists:
        return source
    return [f"DATES = {lists!r}", *source, "for _entry in SCHEDULES:  # kinds.skip_dates.with_lists",
            '    for _name in _entry.pop("skip_lists", ()):',
            '        _entry["skip"] = {**DATES[_name], **_entry["skip"]} if "skip" in _entry else DATES[_name]']


def _named_lists(specs: list[Spec]) -> dict[str, dict[str, str]]:
    """The named lists the specs' skip dates came from, each the dates attributed to it."""
    lists: dict[str, dict[str, str]] = {}
    for spec in specs:
        for day, source in (spec.skip or {}).items():
            if source:
                lists.setdefault(source, {})[day] = source
    return {name: dict(sorted(dates.items())) for name, dates in sorted(lists.items())}


def _sharing(entry: dict, lists: dict[str, dict[str, str]]) -> dict:
    """The entry as written: its skip dates of named lists as the lists' names, where putting them
    back gives its skip dates exactly (a date of two lists may be told of either); else in full."""
    skip = entry.get("skip")
    if not skip:
        return entry
    names = sorted({source for source in skip.values() if source})
    own = {day: source for day, source in skip.items() if not source}
    shared = {key: value for key, value in entry.items() if key != "skip"} | ({"skip": own} if own else {})
    if names and with_lists(dict(shared, skip_lists=names), lists).get("skip") == skip:
        return shared | {"skip_lists": names}
    return entry


def write_manifest(
    directory: Path, store: str | None, specs: list[Spec], statements_per_tick: int, queues=None,
    retention_ms: int | None = None, alerts: str | None = None, console: dict | None = None,
    version_metadata: object = None, wakes: str | None = None, metrics: object = None,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / MANIFEST
    path.write_text(manifest_source(store, specs, statements_per_tick, queues, retention_ms, alerts, console,
                                    version_metadata, wakes, metrics))
    return path


def cron_trigger_problems(wrangler_toml: Path) -> list[Problem]:
    """Where the Worker's configuration (wrangler.toml, or wrangler.jsonc, wrangler.json) says its
    triggers in a form the build cannot edit safely (an inline table, dotted keys) or of the wrong
    type: a problem, rather than a Worker that never ticks."""
    text, name = wrangler_toml.read_text(), wrangler_toml.name
    if _is_json(wrangler_toml):
        if _json_crons(text) is not None:
            return []
        read, where = jsonc.loads(text), ("triggers",)
        if not isinstance(read.get("triggers", {}), dict):
            where = ()
        return [Problem("deployable.trigger_missing", f"{name}'s `triggers.crons` is not an array of cron "
                        "expressions (strings)", f'write `"triggers": {{ "crons": ["{MINUTE_CRON}"] }}` in {name}',
                        name, jsonc.line_of(text, where, "crons" if where else "triggers"))]
    if _crons(text) is None:
        return [Problem(
            "deployable.trigger_missing",
            "wrangler.toml's `triggers.crons` is not an array of cron expressions (strings)",
            f'write `crons = ["{MINUTE_CRON}"]` under a `[triggers]` table in wrangler.toml',
            wrangler_toml.name,
            line_of(text, ("triggers",), "crons") if isinstance(tomllib.loads(text).get("triggers"), dict)
            else line_of(text, (), "triggers"),
        )]
    if _with_minute_cron(text) is not None:
        return []
    return [
        Problem(
            "deployable.trigger_missing",
            "wrangler.toml's triggers are written in a form the build cannot add the minute cron to",
            f'put `crons = ["{MINUTE_CRON}"]` under a `[triggers]` table in wrangler.toml',
            wrangler_toml.name,
            1,
        )
    ]


def ensure_cron_trigger(wrangler_toml: Path) -> bool:
    """Adds the minute cron to the top-level triggers' crons (of wrangler.toml, or of
    wrangler.jsonc or wrangler.json, its comments kept); True if the file had to change.
    Raises BuildFailed with `cron_trigger_problems` where it cannot."""
    text = wrangler_toml.read_text()
    changed = _json_with_minute_cron(text) if _is_json(wrangler_toml) else _with_minute_cron(text)
    if changed is None:
        raise BuildFailed(cron_trigger_problems(wrangler_toml))
    if changed == text:
        return False
    wrangler_toml.write_text(changed)
    return True


def _is_json(path: Path) -> bool:
    return path.suffix in (".json", ".jsonc")


def _json_crons(text: str) -> list[str] | None:
    triggers = jsonc.loads(text).get("triggers", {})
    crons = triggers.get("crons", []) if isinstance(triggers, dict) else None
    return crons if isinstance(crons, list) and all(isinstance(cron, str) for cron in crons) else None


def _json_with_minute_cron(text: str) -> str | None:
    """The JSONC text with the minute cron among its crons, added where the others are."""
    crons = _json_crons(text)
    if crons is None:
        return None
    if MINUTE_CRON in crons:
        return text
    read = jsonc.loads(text)
    if "triggers" not in read:
        text = jsonc.add_member(text, (), "triggers", {"crons": [MINUTE_CRON]})
    elif "crons" not in read["triggers"]:
        text = jsonc.add_member(text, ("triggers",), "crons", [MINUTE_CRON])
    else:
        text = jsonc.add_item(text, ("triggers", "crons"), MINUTE_CRON)
    try:
        return text if _json_crons(text) == [*crons, MINUTE_CRON] else None
    except jsonc.JsoncError:  # written in a way the edit above misread
        return None


def _with_minute_cron(text: str) -> str | None:
    """The file's text with the minute cron among its top-level crons, the others and their
    comments kept as written; None where it cannot be."""
    crons = _crons(text)
    if crons is None:
        return None
    if MINUTE_CRON in crons:
        return text
    wanted = [*crons, MINUTE_CRON]
    header = re.search(r"(?m)^\[triggers\][ \t]*(#.*)?$", text)
    if header is not None:
        following = re.search(r"(?m)^\s*\[", text[header.end():])
        end = header.end() + following.start() if following else len(text)
        section = text[header.end():end]
        opened = re.search(r"(?m)^crons\s*=\s*\[", section)
        if opened is None:
            section = f'\ncrons = ["{MINUTE_CRON}"]' + section
        else:
            last = _last_item_end(section, opened.end())
            after = {"[": "", ",": " "}.get(section[last - 1], ", ")
            section = section[:last] + f'{after}"{MINUTE_CRON}"' + section[last:]
        text = text[:header.end()] + section + text[end:]
    elif "triggers" not in tomllib.loads(text):
        text = text.rstrip("\n") + f'\n\n[triggers]\ncrons = ["{MINUTE_CRON}"]\n'
    try:
        return text if _crons(text) == wanted else None
    except tomllib.TOMLDecodeError:  # written in a way the edit above misread
        return None


def _last_item_end(text: str, start: int) -> int:
    """Where the last item (or its comma, or the `[`) of the array opened at `start` ends, past
    its strings and comments: the minute cron goes there, the comments staying as written."""
    last, at, quote = start, start, None
    while at < len(text):
        char = text[at]
        if quote:
            if char == "\\" and quote == '"':
                at += 1
            elif char == quote:
                quote, last = None, at + 1
        elif char == "#":
            at = text.find("\n", at)
            at = len(text) if at < 0 else at
            continue
        elif char == "]":
            break
        elif char in "\"'":
            quote = char
        elif not char.isspace():
            last = at + 1
        at += 1
    return last


def _crons(text: str) -> list[str] | None:
    """The top-level triggers' crons; None where they are not an array of strings."""
    triggers = tomllib.loads(text).get("triggers", {})
    crons = triggers.get("crons", []) if isinstance(triggers, dict) else None
    return crons if isinstance(crons, list) and all(isinstance(cron, str) for cron in crons) else None
