"""What the build writes: the manifest module the Worker imports, and the Wrangler cron trigger."""

import re
import tomllib
from pathlib import Path

from .schedules import Spec

MANIFEST = "tickwork_manifest.py"
MINUTE_CRON = "* * * * *"


def manifest_source(store: str | None, specs: list[Spec]) -> str:
    lines = [
        '"""Written by `make build` from the app\'s declarations; do not edit."""',
        "",
        f"STORE = {store!r}",
        "",
        "SCHEDULES = (",
    ]
    for spec in sorted(specs, key=lambda spec: spec.name):
        lines.append(f"    {spec.manifest_entry()!r},")
    lines.append(")")
    return "\n".join(lines) + "\n"


def write_manifest(directory: Path, store: str | None, specs: list[Spec]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / MANIFEST
    path.write_text(manifest_source(store, specs))
    return path


def ensure_cron_trigger(wrangler_toml: Path) -> bool:
    """Adds the minute cron to `[triggers] crons`; True if the file had to change."""
    text = wrangler_toml.read_text()
    crons = tomllib.loads(text).get("triggers", {}).get("crons")
    if crons is not None and MINUTE_CRON in crons:
        return False
    if crons is None:
        addition = f'\n[triggers]\ncrons = ["{MINUTE_CRON}"]\n'
        text = text.rstrip("\n") + "\n" + addition
    else:
        listed = ", ".join(f'"{cron}"' for cron in [*crons, MINUTE_CRON])
        text = re.sub(r"(?ms)^crons\s*=\s*\[.*?\]", f"crons = [{listed}]", text, count=1)
    wrangler_toml.write_text(text)
    return True
