"""Whether the Worker's bundle (build/worker) is as its sources are: `tickwork dev` and
`tickwork tick` build and bundle again (20-80 s) only when a file that goes into it changed,
was added or removed since the last bundle."""

import json
from pathlib import Path

STAMP = Path("build") / ".tickwork-bundled"
SKIPPED = {"__pycache__", ".installed"}


def sources(root: Path) -> dict[str, list[int]]:
    """Every file the bundle is made from, with its size and modification time: the Worker's
    code, its migrations, its vendored packages, its settings, and the tickwork that builds it."""
    from tickwork_build.project import load_project

    project = load_project(root)
    folders = [project.worker_root, root / "python_modules", Path(__file__).resolve().parents[1]]
    folders += [root / binding.get("migrations_dir", "migrations") for binding in project.d1_bindings]
    found = {}
    for name in (project.config_file, "pyproject.toml"):
        found.update(_seen(root / name))
    for folder in folders:
        if folder.is_dir():
            for path in folder.rglob("*"):
                if path.is_file() and not SKIPPED & set(path.parts) and path.suffix != ".pyc":
                    found.update(_seen(path))
    return found


def current(root: Path, seen: dict) -> bool:
    stamp = root / STAMP
    try:
        return (root / "build" / "worker").is_dir() and json.loads(stamp.read_text()) == seen
    except (OSError, ValueError):
        return False


def stamp(root: Path, before: dict) -> None:
    """Kept only when nothing changed while the bundle was made: a file saved meanwhile makes
    the next one bundle again."""
    after = sources(root)
    (root / STAMP).write_text(json.dumps(after if after == before else {}))


def _seen(path: Path) -> dict[str, list[int]]:
    try:
        status = path.stat()
    except OSError:
        return {}
    return {str(path): [status.st_size, status.st_mtime_ns]}
