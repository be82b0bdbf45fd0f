"""The build: read every declaration, validate it, and write what the Worker loads."""

import shutil
from dataclasses import dataclass
from pathlib import Path

from .collect import collect
from .declaration import Declaration
from .output import ensure_cron_trigger, write_manifest
from .problems import BuildFailed, Problem
from .project import Project, load_project, resolve_store
from .schedules import Spec, check_workers_target, validate_declaration


@dataclass(frozen=True)
class Built:
    project: Project
    store: str | None
    schedules: list[Spec]
    manifest: Path


def check(project: Project) -> tuple[str | None, list[Spec], list[Problem]]:
    """Validates the whole app, gathering every problem rather than stopping at the first."""
    declarations, modules, problems = collect(project)
    store, why_none = resolve_store(project)
    specs: list[Spec] = []
    seen: dict[str, Declaration] = {}
    for declaration in declarations:
        if declaration.name in seen:
            first = seen[declaration.name]
            problems.append(
                Problem(
                    "schedule.item_invalid",
                    f"the name is declared twice; first at {first.file}:{first.line}",
                    "give each schedule a name of its own",
                    declaration.file,
                    declaration.line,
                    declaration.name,
                )
            )
            continue
        seen[declaration.name] = declaration
        spec, trouble = validate_declaration(
            declaration, modules.get(declaration.domain), project.domain_module(declaration.domain)
        )
        problems += trouble
        if spec is None:
            continue
        problems += check_workers_target(spec, declaration)
        if store is None:
            problems.append(
                Problem(
                    "schedule.store_required",
                    why_none,
                    "bind one D1 database in wrangler.toml, or name the store in pyproject.toml: "
                    '[tool.tickwork] store = "<binding>"',
                    declaration.file,
                    declaration.line,
                    declaration.name,
                )
            )
        specs.append(spec)
    return store, specs, problems


def build(root: Path) -> Built:
    """Lays the Worker out in build/app: a copy of the source with the manifest beside its entry.

    Wrangler bundles every module under the directory of `main`, so the generated manifest and
    the code it names must share one; the source tree itself never holds generated files.
    """
    project = load_project(root)
    store, specs, problems = check(project)
    if problems:
        raise BuildFailed(sorted(problems, key=lambda p: (p.file, p.line, p.code)))
    out = project.root / "build" / "app"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(
        project.worker_root, out, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    manifest = write_manifest(out, store, specs)
    ensure_cron_trigger(project.root / "wrangler.toml")
    return Built(project, store, specs, manifest)
