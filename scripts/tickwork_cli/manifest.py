"""The declared schedules as the last `make build` wrote them (build/app/tickwork_manifest.py),
read as data: the manifest is never imported, so reading it runs none of its code."""

import ast
import json
from pathlib import Path

from tickwork.kinds.skip_dates import with_lists

MANIFEST = Path("build") / "app" / "tickwork_manifest.py"


def _constant(project_root: Path, name: str):
    """The literal value the manifest assigns to `name`; None where it has none or cannot be read."""
    path = project_root / MANIFEST
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            try:
                return _literal(node.value)
            except ValueError:
                return None
    return None


def _literal(node: ast.expr):
    """A literal, or the manifest's `tuple(json.loads("[...]"))` of one (SCHEDULES)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and isinstance(node.args[0], ast.Call):
        inner = node.args[0]
        if len(inner.args) == 1 and isinstance(inner.args[0], ast.Constant) and isinstance(inner.args[0].value, str):
            return tuple(json.loads(inner.args[0].value))
    return ast.literal_eval(node)


def declared(project_root: Path) -> dict[str, dict] | None:
    """Each declared schedule's manifest entry (`source` file:line, kind, timing) by name; None
    where the project has not been built, or its manifest cannot be read."""
    entries = _constant(project_root, "SCHEDULES")
    if not isinstance(entries, (tuple, list)):
        return None
    lists = _constant(project_root, "DATES") or {}  # the named lists of skip dates, written once
    return {entry["name"]: with_lists(entry, lists) for entry in entries if isinstance(entry, dict) and "name" in entry}


def consumer_tries(project_root: Path) -> dict[str, int]:
    """By producer binding, how many times the queue hands one send of a message to the app's own
    consumer before its delivery is `failed`: its `max_retries` and the first try."""
    producers = _constant(project_root, "PRODUCERS")
    consumers = _constant(project_root, "CONSUMERS")
    if not isinstance(producers, dict) or not isinstance(consumers, (tuple, list)):
        return {}
    retries = {c.get("queue"): c.get("max_retries") for c in consumers if isinstance(c, dict)}
    return {binding: retries[queue] + 1 for binding, queue in producers.items()
            if isinstance(retries.get(queue), int)}
