"""What the build writes: the manifest module the Worker imports, and the Wrangler cron trigger."""

import re
import tomllib
from pathlib import Path

from .problems import BuildFailed, Problem
from .schedules import Spec

MANIFEST = "tickwork_manifest.py"
MINUTE_CRON = "* * * * *"


def manifest_source(store: str | None, specs: list[Spec], statements_per_tick: int, queues=None,
                    retention_ms: int | None = None, alerts: str | None = None) -> str:
    lines = [
        '"""Written by `make build` from the app\'s declarations; do not edit."""',
        "",
        f"STORE = {store!r}",
        f"STATEMENTS_PER_TICK = {statements_per_tick!r}",
        f"PRODUCERS = {dict(queues.producers) if queues else {}!r}",
        f"QUEUES_BOUND = {bool(queues and queues.bound)!r}",
        f"RETENTION_MS = {retention_ms or 30 * 86_400_000!r}",
        f"ALERTS = {alerts!r}",
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
    retention_ms: int | None = None, alerts: str | None = None,
) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / MANIFEST
    path.write_text(manifest_source(store, specs, statements_per_tick, queues, retention_ms, alerts))
    return path


def cron_trigger_problems(wrangler_toml: Path) -> list[Problem]:
    """Where wrangler.toml says its triggers in a form the build cannot edit safely (an inline
    table, dotted keys): a problem, rather than a Worker that never ticks."""
    if _with_minute_cron(wrangler_toml.read_text()) is not None:
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
    if MINUTE_CRON in _crons(text):
        return text
    listed = ", ".join(f'"{cron}"' for cron in [*_crons(text), MINUTE_CRON])
    header = re.search(r"(?m)^\[triggers\][ \t]*(#.*)?$", text)
    if header is not None:
        following = re.search(r"(?m)^\s*\[", text[header.end():])
        end = header.end() + following.start() if following else len(text)
        section = text[header.end():end]
        crons = re.compile(r"(?ms)^crons\s*=\s*\[.*?\]")
        if crons.search(section):
            section = crons.sub(lambda _: f"crons = [{listed}]", section, count=1)
        else:
            section = f"\ncrons = [{listed}]" + section
        text = text[:header.end()] + section + text[end:]
    elif "triggers" not in tomllib.loads(text):
        text = text.rstrip("\n") + f'\n\n[triggers]\ncrons = ["{MINUTE_CRON}"]\n'
    return text if MINUTE_CRON in _crons(text) else None


def _crons(text: str) -> list[str]:
    return tomllib.loads(text).get("triggers", {}).get("crons", [])
