"""Finds every declaration of an app: `.jadpo` files under each domain, and Python decorators."""

import importlib
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from tickwork.declare import DECLARATIONS

from . import jadpo
from .declaration import Declaration, Item
from .problems import Problem
from .project import Project


def collect(project: Project) -> tuple[list[Declaration], dict[str, ModuleType | None], list[Problem]]:
    """Every declaration, each domain's module (None where it has none or it fails to import),
    and the problems met on the way."""
    declarations: list[Declaration] = []
    modules: dict[str, ModuleType | None] = {}
    problems: list[Problem] = []
    with importing_from(project.worker_root, project.app_package):
        for domain in project.domains():
            module, problem = _import_domain(project, domain)
            modules[domain] = module
            problems += problem
            for path in sorted((project.app / "domains" / domain).rglob("*.jadpo")):
                found, trouble = _parse_file(project, path, domain)
                declarations += found
                problems += trouble
            if module is not None:
                declarations += _declared_in_python(project, domain, module)
    return declarations, modules, problems


def _parse_file(project: Project, path: Path, domain: str):
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = path.read_bytes()[: error.start].count(b"\n") + 1
        problem = Problem(
            jadpo.SYNTAX,
            f"the file is not UTF-8 text: byte {error.object[error.start]:#04x} at offset {error.start}",
            "save the file as UTF-8",
            project.relative(path),
            line,
        )
        return [], [problem]
    return jadpo.parse(text, project.relative(path), domain)


def _import_domain(project: Project, domain: str) -> tuple[ModuleType | None, list[Problem]]:
    directory = project.app / "domains" / domain
    if not (directory / "__init__.py").exists() and not directory.with_suffix(".py").exists():
        return None, []
    try:
        return importlib.import_module(project.domain_module(domain)), []
    except Exception as error:
        where = traceback.extract_tb(error.__traceback__)[-1]
        return None, [
            Problem(
                "domain.import_failed",
                f"domain `{domain}` fails to import: {type(error).__name__}: {error}",
                "fix the error at this line; the build imports each domain to find its actions",
                project.relative(where.filename),
                where.lineno or 1,
            )
        ]


def _declared_in_python(project: Project, domain: str, module: ModuleType) -> list[Declaration]:
    found = []
    seen: set[int] = set()
    for value in vars(module).values():
        if getattr(value, "__module__", None) != module.__name__ or id(value) in seen:
            continue  # imported from elsewhere, or another name for an action already read
        seen.add(id(value))
        for declared in getattr(value, DECLARATIONS, ()):
            items = tuple(Item(key, text, declared.line) for key, text in declared.items.items())
            found.append(
                Declaration(
                    declared.kind,
                    declared.name,
                    domain,
                    project.relative(declared.file),
                    declared.line,
                    items,
                )
            )
    return sorted(found, key=lambda declaration: (declaration.file, declaration.line))


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
