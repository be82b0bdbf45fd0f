"""What the build writes: the manifest module the Worker imports, and the Wrangler cron trigger."""

import re
import tomllib
from pathlib import Path

from .problems import BuildFailed, Problem
from .schedules import Spec
from .settings import line_of

MANIFEST = "tickwork_manifest.py"
MINUTE_CRON = "* * * * *"


def manifest_source(store: str | None, specs: list[Spec], statements_per_tick: int, queues=None,
                    retention_ms: int | None = None) -> str:
    lines = [
        '"""Written by `make build` from the app\'s declarations; do not edit."""',
        "",
        f"STORE = {store!r}",
        f"STATEMENTS_PER_TICK = {statements_per_tick!r}",
        f"PRODUCERS = {dict(queues.producers) if queues else {}!r}",
        f"QUEUES_BOUND = {bool(queues and queues.bound)!r}",
        f"RETENTION_MS = {retention_ms or 30 * 86_400_000!r}",
        "",
        "SCHEDULES = (",
    ]
    for spec in sorted(specs, key=lambda spec: spec.name):
        lines.append(f"    {spec.manifest_entry()!r},")
    lines.append(")")
    lines.append("")
    lines.append("CONSUMERS = (")
    for entry in (queues.consumers if queues else []):
        lines.append(f"    {entry!r},")
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_manifest(
    directory: Path, store: str | None, specs: list[Spec], statements_per_tick: int, queues=None,
    retention_ms: int | None = None,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / MANIFEST
    path.write_text(manifest_source(store, specs, statements_per_tick, queues, retention_ms))
    return path


def cron_trigger_problems(wrangler_toml: Path) -> list[Problem]:
    """Where wrangler.toml says its triggers in a form the build cannot edit safely (an inline
    table, dotted keys) or of the wrong type: a problem, rather than a Worker that never ticks."""
    text = wrangler_toml.read_text()
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
    """Adds the minute cron to the top-level `[triggers] crons`; True if the file had to change.
    Raises BuildFailed with `cron_trigger_problems` where it cannot."""
    text = wrangler_toml.read_text()
    changed = _with_minute_cron(text)
    if changed is None:
        raise BuildFailed(cron_trigger_problems(wrangler_toml))
    if changed == text:
        return False
    wrangler_toml.write_text(changed)
    return True


def _with_minute_cron(text: str) -> str | None:
    """The file's text with the minute cron among its top-level crons; None where it cannot be."""
    if _crons(text) is None:
        return None
    if MINUTE_CRON in _crons(text):
        return text
    wanted = [*_crons(text), MINUTE_CRON]
    listed = ", ".join(map(_basic_string, wanted))
    header = re.search(r"(?m)^\[triggers\][ \t]*(#.*)?$", text)
    if header is not None:
        following = re.search(r"(?m)^\s*\[", text[header.end():])
        end = header.end() + following.start() if following else len(text)
        section = text[header.end():end]
        crons = re.compile(r"(?m)^crons\s*=\s*" + _ARRAY)
        if crons.search(section):
            section = crons.sub(lambda _: f"crons = [{listed}]", section, count=1)
        else:
            section = f"\ncrons = [{listed}]" + section
        text = text[:header.end()] + section + text[end:]
    elif "triggers" not in tomllib.loads(text):
        text = text.rstrip("\n") + f'\n\n[triggers]\ncrons = ["{MINUTE_CRON}"]\n'
    try:
        return text if _crons(text) == wanted else None
    except tomllib.TOMLDecodeError:  # written in a way the edit above misread
        return None


# A TOML array as written: its strings and comments may hold brackets.
_ARRAY = r"""\[(?:"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|#[^\n]*|[^\]"'#])*\]"""


def _basic_string(text: str) -> str:
    """`text` as a TOML basic string: quotes, backslashes and control characters escaped."""
    return '"' + "".join(f"\\u{ord(c):04x}" if c < " " or c in '"\\\x7f' else c for c in text) + '"'


def _crons(text: str) -> list[str] | None:
    """The top-level triggers' crons; None where they are not an array of strings."""
    triggers = tomllib.loads(text).get("triggers", {})
    crons = triggers.get("crons", []) if isinstance(triggers, dict) else None
    return crons if isinstance(crons, list) and all(isinstance(cron, str) for cron in crons) else None
