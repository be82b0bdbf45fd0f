"""Finds every declaration of an app: `.jadpo` files under each domain, and Python decorators and
`purge(...)` calls in every module of each domain's package."""

import importlib
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import tickwork as tickwork_package
from tickwork.kinds.cron_syntax import shown
from tickwork.declare import DECLARATIONS, MADE
from tickwork.events import EventError
from tickwork.model import ScheduleError

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
    used: set[int] = set()
    with importing_from(project.worker_root, project.app_package):
        MADE.clear()
        for domain in project.domains():
            name = project.domain_module(domain)
            imported, trouble = _import_package(project, domain)
            modules |= imported
            problems += trouble
            for path in sorted((project.app / "domains" / domain).rglob("*.jadpo")):
                found, trouble = _parse_file(project, path, domain, name)
                declarations += found
                problems += trouble
            found, trouble = _declared_in_python(project, domain, [m for m in imported.values() if m], used)
            declarations += found
            problems += trouble
            declarations += _purges_in_python(project, domain, list(imported), used)  # made before a failure too
        failed = tuple(f"{name}." for name, module in modules.items() if module is None)
        problems += [_not_found(project, declared) for declared in MADE  # what a failed module made is unknown
                     if id(declared) not in used and not declared.action.startswith(failed)]
    return declarations, modules, problems


def _not_found(project: Project, declared) -> Problem:
    """A decorator that ran on a function the Worker cannot find by name in a domain's module, or
    a purge declared outside the domains' packages."""
    if declared.kind == "purge":
        return Problem(
            "purge.place_invalid",
            f"`purge(...)` is called in module `{declared.module}`, which is not a module of a domain's package",
            "move the call to the top level of a module under src/app/domains/<domain>/",
            project.relative(declared.file),
            declared.line,
        )
    return Problem(
        "schedule.run_invalid",
        f"`@{declared.kind}` decorates `{declared.action}`, which is not a function at the top level "
        "of a module of a domain's package, where the build and the Worker find actions",
        "move the action, with its decorator, to the top level of a module under src/app/domains/<domain>/",
        project.relative(declared.file),
        declared.line,
        declared.name if isinstance(declared.name, str) else None,
    )


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
    """The domain's module and every module under its directory, by name: subdirectories
    without an `__init__.py` too, which Python imports as namespace packages."""
    modules: dict[str, ModuleType | None] = {}
    problems: list[Problem] = []
    for name in _module_names(project, domain):
        if any(name.startswith(f"{failed}.") for failed, module in modules.items() if module is None):
            continue  # its package failed to import, and is reported
        try:
            modules[name] = importlib.import_module(name)
        except (Exception, SystemExit) as error:  # sys.exit() at import ends no build silently
            modules[name] = None
            file, line = _where(project, error)
            if isinstance(error, (EventError, ScheduleError)):  # tickwork refused an argument: its own code
                message = str(error).removeprefix(f"{error.code}: ").removesuffix(f"; {error.mend}")
                problems.append(Problem(error.code, message, error.mend or "mend the call at this line", file, line))
                continue
            problems.append(
                Problem(
                    "domain.import_failed",
                    f"module `{name}` of domain `{domain}` fails to import: {type(error).__name__}: {error}",
                    "fix the error at this line; the build imports each module of a domain to find its actions",
                    file,
                    line,
                )
            )
    return modules, problems


def _module_names(project: Project, domain: str) -> list[str]:
    """Every module of a domain by name, parents first: its `domains/<domain>.py`, or each `.py`
    file under `domains/<domain>/` whose path Python can import."""
    package, directory = project.domain_module(domain), project.app / "domains" / domain
    if not directory.is_dir():
        return [package] if directory.with_suffix(".py").exists() else []
    names = []
    for path in directory.rglob("*.py"):
        parts = path.relative_to(directory).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if all(part.isidentifier() for part in parts) and "__main__" not in parts:
            names.append(".".join((package, *parts)))
    return sorted(set(names), key=lambda name: (name.count("."), name))


def _where(project: Project, error: BaseException) -> tuple[str, int]:
    """Where an import failed: a syntax error's own place, else the last line of the app's code
    that ran, rather than a line of importlib or of a library the app called."""
    if isinstance(error, SyntaxError) and error.filename:
        return project.relative(error.filename), error.lineno or 1
    frames = traceback.extract_tb(error.__traceback__)
    tickwork = Path(tickwork_package.__file__).parent.resolve()  # the example app's src/ holds it too
    own = [frame for frame in frames if Path(frame.filename).resolve().is_relative_to(project.worker_root)
           and not Path(frame.filename).resolve().is_relative_to(tickwork)]
    frame = (own or frames)[-1]
    return project.relative(frame.filename), frame.lineno or 1


def _declared_in_python(project: Project, domain: str, modules: list[ModuleType], used: set[int]):
    """The declarations on the functions at the top level of `modules`; `used` gathers them."""
    found, problems = [], []
    seen: set[int] = set()
    for module in modules:
        for value in vars(module).values():
            if getattr(value, "__module__", None) != module.__name__ or id(value) in seen:
                continue  # imported from elsewhere, or another name for an action already read
            seen.add(id(value))
            for declared in getattr(value, DECLARATIONS, ()):
                used.add(id(declared))
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


def _purges_in_python(project: Project, domain: str, modules: list[str], used: set[int]) -> list[Declaration]:
    """The `purge(...)` calls the import of `modules` made; `used` gathers them."""
    found = []
    for declared in MADE:
        if declared.kind == "purge" and declared.module in modules and id(declared) not in used:
            used.add(id(declared))
            table = declared.name if isinstance(declared.name, str) and NAME.fullmatch(declared.name) else "purge"
            items = tuple(Item(key, _written(given), declared.line) for key, given in declared.items.items())
            file = project.relative(declared.file)
            found.append(Declaration("purge", table, domain, declared.module, file, declared.line, items))
    return sorted(found, key=lambda declaration: (declaration.file, declaration.line))


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
    except Exception:
        if isinstance(value, int):  # past the 4,300 digits Python prints: as long as any it reads
            return "1" + "0" * 4300
        return f"<{type(value).__name__}>"  # its own __str__ raised: no item takes this, and its check says so


@contextmanager
def importing_from(worker_root: Path, package: str):
    """Imports the app as the Worker would, then forgets it, so builds of other apps start clean.
    A package of that name the process imported before (another app's) is set aside meanwhile, so
    the build reads this app's modules, and put back after."""
    path = str(worker_root)
    before = _taken_out(package)
    sys.path.insert(0, path)
    try:
        yield
    finally:
        sys.path.remove(path)
        _taken_out(package)
        sys.modules.update(before)
        importlib.invalidate_caches()


def _taken_out(package: str) -> dict[str, ModuleType]:
    """The package's modules, out of `sys.modules`."""
    names = [name for name in sys.modules if name == package or name.startswith(package + ".")]
    return {name: sys.modules.pop(name) for name in names}
