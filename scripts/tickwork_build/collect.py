"""Finds every declaration of an app: `.jadpo` files under each domain, and Python decorators in
every module of each domain's package."""

import importlib
import pkgutil
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from tickwork.cron_syntax import shown
from tickwork.declare import DECLARATIONS

from . import jadpo
from .declaration import NAME, Declaration, Item
from .problems import Problem
from .project import Project


def collect(project: Project) -> tuple[list[Declaration], dict[str, ModuleType | None], list[Problem]]:
    """Every declaration, each domain module by name (None where it fails to import), and the
    problems met on the way."""
    declarations: list[Declaration] = []
    modules: dict[str, ModuleType | None] = {}
    problems: list[Problem] = []
    with importing_from(project.worker_root, project.app_package):
        for domain in project.domains():
            name = project.domain_module(domain)
            imported, trouble = _import_package(project, domain)
            modules |= imported
            problems += trouble
            for path in sorted((project.app / "domains" / domain).rglob("*.jadpo")):
                found, trouble = _parse_file(project, path, domain, name)
                declarations += found
                problems += trouble
            found, trouble = _declared_in_python(project, domain, [m for m in imported.values() if m])
            declarations += found
            problems += trouble
    return declarations, modules, problems


def _parse_file(project: Project, path: Path, domain: str, module: str):
    data, file = path.read_bytes(), project.relative(path)
    problems = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.append(
                Problem(
                    jadpo.SYNTAX,
                    f"the line is not UTF-8 text: byte {line[error.start]:#04x} at column {error.start + 1}",
                    "save the file as UTF-8",
                    file,
                    number,
                )
            )
    found, trouble = jadpo.parse(data.decode("utf-8-sig", errors="replace"), file, domain, module)
    return found, problems + trouble


def _import_package(project: Project, domain: str) -> tuple[dict[str, ModuleType | None], list[Problem]]:
    """The domain's module and, where it is a package, every module under it, by name."""
    directory = project.app / "domains" / domain
    if not (directory / "__init__.py").exists() and not directory.with_suffix(".py").exists():
        return {}, []
    modules: dict[str, ModuleType | None] = {}
    problems: list[Problem] = []
    names = [project.domain_module(domain)]
    while names:
        name = names.pop(0)
        try:
            module = modules[name] = importlib.import_module(name)
        except Exception as error:
            modules[name] = None
            where = traceback.extract_tb(error.__traceback__)[-1]
            problems.append(
                Problem(
                    "domain.import_failed",
                    f"module `{name}` of domain `{domain}` fails to import: {type(error).__name__}: {error}",
                    "fix the error at this line; the build imports each module of a domain to find its actions",
                    project.relative(where.filename),
                    where.lineno or 1,
                )
            )
            continue
        for info in pkgutil.iter_modules(getattr(module, "__path__", []), f"{name}."):
            if not info.name.endswith(".__main__"):
                names.append(info.name)
    return modules, problems


def _declared_in_python(project: Project, domain: str, modules: list[ModuleType]):
    found, problems = [], []
    seen: set[int] = set()
    for module in modules:
        for value in vars(module).values():
            if getattr(value, "__module__", None) != module.__name__ or id(value) in seen:
                continue  # imported from elsewhere, or another name for an action already read
            seen.add(id(value))
            for declared in getattr(value, DECLARATIONS, ()):
                file = project.relative(declared.file)
                name, wrong = _name(declared.name)
                if wrong:
                    problems.append(
                        Problem(
                            "schedule.item_invalid",
                            wrong,
                            'pass `name=` a string of letters, digits, `_` and `.` that starts with a letter '
                            'or `_`, e.g. `name="chore_census"`',
                            file,
                            declared.line,
                        )
                    )
                items = tuple(Item(key, _written(given), declared.line) for key, given in declared.items.items())
                found.append(Declaration(declared.kind, name, domain, module.__name__, file, declared.line, items))
    return sorted(found, key=lambda declaration: (declaration.file, declaration.line)), problems


def _name(given: object) -> tuple[str, str]:
    """The name a decorator gave, and what is wrong with it ("" if nothing is). A wrong one
    still names the declaration, as written, so its items are checked too."""
    if not isinstance(given, str):
        return f"<{type(given).__name__}>", f"`name=` is of type {type(given).__name__}, not a string"
    if not NAME.fullmatch(given):
        return shown(repr(given)), f"`name={shown(repr(given))}` is not a schedule name"
    return given, ""


def _written(value: object) -> str:
    """A decorator's argument as a `.jadpo` file would write it."""
    try:
        return str(value)
    except ValueError:  # an int past the 4,300 digits Python prints: as long as any it reads
        return "1" + "0" * 4300


@contextmanager
def importing_from(worker_root: Path, package: str):
    """Imports the app as the Worker would, then forgets it, so builds of other apps start clean."""
    path = str(worker_root)
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)
        for name in [name for name in sys.modules if name == package or name.startswith(package + ".")]:
            del sys.modules[name]
        importlib.invalidate_caches()
