"""The declared schedules as the last `make build` wrote them (build/app/tickwork_manifest.py),
read as data: the manifest is never imported, so reading it runs none of its code."""

import ast
from pathlib import Path

MANIFEST = Path("build") / "app" / "tickwork_manifest.py"


def declared(project_root: Path) -> dict[str, dict] | None:
    """Each declared schedule's manifest entry (`source` file:line, kind, timing) by name; None
    where the project has not been built, or its manifest cannot be read."""
    path = project_root / MANIFEST
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "SCHEDULES" for t in node.targets):
            try:
                entries = ast.literal_eval(node.value)
            except ValueError:
                return None
            return {entry["name"]: entry for entry in entries if isinstance(entry, dict) and "name" in entry}
    return None
