"""What `tickwork build` adds to a Worker beside the build's own layout: tickwork's migrations in
the store's `migrations_dir`, and its runtime with its pinned dependencies in `python_modules/`.

Both come from the installed `tickwork` itself, so they are offline and at the versions its wheel
pins: the runtime package is copied from where Python imports it, its dependencies from the
files their installed distributions record. A `python_modules/` that `pywrangler sync` filled
keeps what it holds; a dependency there at another version is replaced by the pinned one.
"""

import filecmp
import re
import shutil
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import tickwork

from .shipped import CHECKOUT, migrations

IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc")


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _shown(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def sync_migrations(migrations_dir: Path, root: Path) -> list[str]:
    """Copies each of tickwork's migrations missing from `migrations_dir` under its own name and
    number; what changed, one line each. Raises ValueError for one there that differs."""
    changes, differing = [], []
    for source in migrations():
        target = migrations_dir / source.name
        if not target.exists():
            migrations_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            changes.append(f"added {_shown(target, root)}: tickwork's migration")
        elif not filecmp.cmp(source, target, shallow=False):
            differing.append(_shown(target, root))
    if differing:
        raise ValueError(f"{', '.join(differing)} differ from tickwork's migrations of the same names: "
                         "tickwork's are numbered 0001 to 0099, so number the app's own from 0100")
    return changes


def runtime_pins() -> list[tuple[str, str]]:
    """(name, version) of each package the runtime needs: the installed tickwork's requirements
    but its extras', or, run from a checkout, its pyproject.toml's `[project].dependencies`."""
    try:
        requires = [text for text in distribution("tickwork").requires or [] if "extra" not in text]
    except PackageNotFoundError:
        requires = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]["dependencies"]
    return [tuple(text.split(";")[0].strip().split("==")) for text in requires]


def vendor_runtime(project_root: Path, source_holds_tickwork: bool) -> list[str]:
    """Puts the runtime and its dependencies into python_modules/; what changed, one line each."""
    modules = project_root / "python_modules"
    modules.mkdir(exist_ok=True)
    changes = []
    if not source_holds_tickwork:
        package = Path(tickwork.__file__).resolve().parent
        shutil.rmtree(modules / "tickwork", ignore_errors=True)
        shutil.copytree(package, modules / "tickwork", ignore=IGNORED)
    for name, version in runtime_pins():
        if (modules / f"{_normal(name)}-{version}.dist-info").is_dir():
            continue
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            dist = None
        if dist is None or dist.version != version:
            raise ValueError(f"tickwork's runtime needs {name}=={version}, which is neither in {modules} "
                             "nor installed beside tickwork: install tickwork again (pip install tickwork[cli])")
        for stale in modules.glob(f"{_normal(name)}-*.dist-info"):
            _remove(modules, stale)
        for file in dist.files or []:
            if file.parts[0] == ".." or "__pycache__" in file.parts:
                continue
            target = modules / file
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(dist.locate_file(file), target)
        changes.append(f"vendored {name} {version} into python_modules/")
    return changes


def _remove(modules: Path, dist_info: Path) -> None:
    """A vendored distribution's files, as its RECORD lists them."""
    record = dist_info / "RECORD"
    for line in record.read_text().splitlines() if record.exists() else []:
        path = modules / line.split(",")[0]
        if path.is_file():
            path.unlink()
    shutil.rmtree(dist_info, ignore_errors=True)
