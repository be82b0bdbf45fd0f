"""The runtime and the tools import each name from the module it lives in, never from a shim left at
an old path (architecture.md §3.10, step 10): a shim costs the first tick a module load and hides
where a thing is. Tests, the documentation's examples and apps may still import the old paths."""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The old paths, each a module that only re-exports names from where they moved.
SHIMS = {f"tickwork.{name}" for name in (
    "timing", "grid", "calendars", "pulses", "once", "cron_syntax", "zones", "retries",
    "schedule_store", "backfill_store", "outbox_store", "alerts_store", "housekeeping_store", "operator_store",
    "consumers", "alerts", "words", "health", "ends", "declared", "housekeeping",
)}


def module_of(path: Path, root: Path) -> tuple[str, str]:
    """The module's dotted name, and the package its relative imports start from."""
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        name = ".".join(parts[:-1])
        return name, name
    name = ".".join(parts)
    return name, name.rpartition(".")[0]


def imported(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def shims_imported(path: Path, root: Path) -> list[str]:
    _, package = module_of(path, root)
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name in SHIMS]
        elif isinstance(node, ast.ImportFrom):
            source = imported(node, package)
            if source in SHIMS:
                found.append(source)
            # `from tickwork import grid` names the shim as a module
            found += [f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in SHIMS]
    return [f"{path.relative_to(root)}:{shim}" for shim in found]


def importers(root: Path, skip: set[str] = frozenset()) -> list[str]:
    return [hit for path in sorted(root.rglob("*.py")) if module_of(path, root)[0] not in skip
            for hit in shims_imported(path, root)]


def test_no_module_of_the_runtime_imports_a_shim():
    assert importers(ROOT / "src", skip=SHIMS) == []


def test_no_tool_imports_a_shim():
    assert importers(ROOT / "scripts") == []


def test_each_shim_listed_is_still_a_module_of_tickwork():
    # A shim removed (a later step) leaves the list: one that no longer exists guards nothing.
    assert sorted(s for s in SHIMS if not (ROOT / "src" / (s.replace(".", "/") + ".py")).exists()) == []


def test_an_import_of_an_old_path_is_found_in_every_spelling(tmp_path):
    package = tmp_path / "tickwork" / "tick"
    package.mkdir(parents=True)
    (package / "step.py").write_text(
        "from ..timing import Call\nfrom .. import alerts as alerting\nimport tickwork.grid\n"
        "def later():\n    from tickwork.schedule_store import State\n"
        "from ..kinds import Owing\nfrom ..outbox import alerts\n"
    )
    found = [hit.rpartition(":")[2] for hit in shims_imported(package / "step.py", tmp_path)]
    assert found == ["tickwork.timing", "tickwork.alerts", "tickwork.grid", "tickwork.schedule_store"]
