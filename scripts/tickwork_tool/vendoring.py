"""What `tickwork build` adds to a Worker beside the build's own layout: tickwork's migrations in
the store's `migrations_dir`, and its runtime with its pinned dependencies in `python_modules/`.

Both come from what is installed beside the command, so they are offline and at the versions its
wheels pin. The runtime is exactly the files of the `tickwork` distribution (the runtime's own,
apart from the tools' `tickwork-dev`): as its RECORD lists them where it is installed, or, run from
a checkout, the modules of the packages its wheel is built from. Its dependencies are the files
their installed distributions record. A `python_modules/` that `pywrangler sync` filled keeps what
it holds; a dependency there at another version is replaced by the pinned one.
"""

import filecmp
import re
import shutil
import tomllib
from importlib.metadata import Distribution, PackageNotFoundError, distribution
from pathlib import Path

import tickwork

from .shipped import CHECKOUT, migrations



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


def _installed_runtime() -> Distribution | None:
    """The `tickwork` distribution whose package is the one imported, if it is installed: not a
    checkout's, nor the egg-info a wheel built in a checkout leaves at its root (found on the path
    when the command runs from there, and as old as that wheel)."""
    try:
        dist = distribution("tickwork")
    except PackageNotFoundError:
        return None
    imported = Path(tickwork.__file__).resolve()
    return dist if Path(dist.locate_file("tickwork/__init__.py")).resolve() == imported else None


def runtime_pins() -> list[tuple[str, str]]:
    """(name, version) of each package the runtime needs: the installed tickwork's requirements
    but its extras', or, run from a checkout, its pyproject.toml's `[project].dependencies`."""
    dist = _installed_runtime()
    if dist is not None:
        requires = [text for text in dist.requires or [] if "extra" not in text]
    else:
        requires = tomllib.loads((CHECKOUT / "pyproject.toml").read_text())["project"]["dependencies"]
    return [tuple(text.split(";")[0].strip().split("==")) for text in requires]


def runtime_files() -> dict[str, Path]:
    """The runtime distribution's files by their paths in python_modules/: those the installed
    `tickwork` records (RECORD) but its metadata, or, where the `tickwork` imported is a checkout's,
    the modules of each package under it that its wheel holds (pyproject.toml's packages.find: a
    folder with an __init__.py, its .py files)."""
    package = Path(tickwork.__file__).resolve().parent
    dist = _installed_runtime()
    if dist is not None and dist.files:
        return {file.as_posix(): Path(dist.locate_file(file)) for file in dist.files
                if file.parts[0] != ".." and not file.parts[0].endswith(".dist-info")
                and "__pycache__" not in file.parts}
    return {f"tickwork/{path.relative_to(package).as_posix()}": path for path in _modules_of(package)}


def _modules_of(package: Path) -> list[Path]:
    """A package's modules and its subpackages', as setuptools finds them with `namespaces = false`."""
    found = sorted(package.glob("*.py"))
    for folder in sorted(path for path in package.iterdir() if path.is_dir()):
        if "." not in folder.name and (folder / "__init__.py").is_file():
            found += _modules_of(folder)
    return found


def _copy_exactly(modules: Path, files: dict[str, Path]) -> None:
    """python_modules/ holds exactly these files in their folders: each copied where it differs
    (one unchanged keeps its time, so the bundle is not made again for it), any other removed."""
    for top in {name.split("/")[0] for name in files} & {path.name for path in modules.iterdir() if path.is_dir()}:
        for path in sorted((modules / top).rglob("*"), reverse=True):  # a folder after what it holds
            if not path.is_dir() and path.relative_to(modules).as_posix() not in files:
                path.unlink()
            elif path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    for name, source in files.items():
        target = modules / name
        if not target.is_file() or not filecmp.cmp(source, target, shallow=False):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)


def vendor_runtime(project_root: Path, source_holds_tickwork: bool) -> list[str]:
    """Puts the runtime and its dependencies into python_modules/; what changed, one line each."""
    modules = project_root / "python_modules"
    modules.mkdir(exist_ok=True)
    changes = []
    if not source_holds_tickwork:
        _copy_exactly(modules, runtime_files())
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
