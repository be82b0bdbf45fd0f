"""The build: read every declaration, validate it, and write what the Worker loads."""

import shutil
from dataclasses import dataclass
from pathlib import Path

from tickwork.times import DAY, LONGEST, duration_ms

from .collect import collect
from .concurrency import limits_apart
from .console import check_console
from .dates import named_lists
from .declaration import NAME, Declaration
from .migrations import schema_of
from .output import cron_trigger_problems, ensure_cron_trigger, write_manifest
from .problems import BuildFailed, Problem
from .version_metadata import check_version_metadata
from .wakes import check_wakes
from .metrics import check_metrics
from .project import Project, load_project, resolve_store
from .purges import Where, owners, schedule_name, validate_purge
from .queues import Queues, check_queues
from .schedules import Spec, validate_declaration
from .settings import directory_problems, line_of


@dataclass(frozen=True)
class Built:
    project: Project
    store: str | None
    schedules: list[Spec]
    statements_per_tick: int
    manifest: Path


def check(project: Project) -> tuple[str | None, list[Spec], list[Problem], Queues]:
    """Validates the whole app, every check on every declaration, gathering every problem.
    Raises BuildFailed where `source` or `app` leaves no app to read."""
    unusable = directory_problems(project.root, project.worker_root, project.app)
    if unusable:
        raise BuildFailed(unusable)
    declarations, modules, problems = collect(project)
    store, why_none = resolve_store(project)
    queues, trouble = check_queues(project, modules)
    problems += trouble
    if store is None:  # handled records and the outbox live in D1 too
        problems += [_store_required(why_none, file, line, None) for file, line in queues.declared]
    where = _where_tables_are(project, store, declarations)
    if where is not None:
        problems += [problem for schema in where.schemas.values() for problem in schema.problems]
    specs: list[Spec] = []
    seen: dict[str, Declaration] = {}
    dates, trouble = named_lists(project.dates, (project.root / "pyproject.toml").read_text(encoding="utf-8"))
    problems += trouble
    for declaration in declarations:
        if declaration.kind == "purge":
            spec, trouble = validate_purge(declaration, where)
            name = schedule_name(declaration, where)
        else:
            spec, trouble = validate_declaration(
                declaration, modules.get(declaration.module), project.domain_module(declaration.domain),
                bool(queues.bound or queues.producers or queues.consumers), dates, project.workflows,
            )
            name = declaration.name if NAME.fullmatch(declaration.name) else None  # a bad name is reported as such
        if name in seen:
            problems.append(_declared_twice(name, seen[name], declaration))
        if name is not None:
            seen.setdefault(name, declaration)
        problems += trouble
        if store is None:
            problems.append(_store_required(why_none, declaration.file, declaration.line, declaration.name,
                                            owners(declaration, where) if declaration.kind == "purge" else []))
        if spec is not None:
            specs.append(spec)
    problems += project.problems
    problems += limits_apart(specs)
    problems += check_declared_count(declarations)
    problems += check_statements_per_tick(project)
    problems += check_retention(project)
    problems += check_alerts(project)
    problems += check_wakes(project, queues.consumers)
    problems += check_console(project)[1]
    problems += check_version_metadata(project.version_metadata, project.version_binding, project.config_file,
                                       (project.root / "pyproject.toml").read_text(encoding="utf-8"))
    problems += check_metrics(project.metrics, project.datasets, project.config_file,
                              (project.root / "pyproject.toml").read_text(encoding="utf-8"))
    problems += cron_trigger_problems(project.root / project.config_file)
    return store, specs, problems, queues


def _where_tables_are(project: Project, store: str | None, declarations: list[Declaration]) -> Where | None:
    """The tables of the store's database, or of each bound one while none is the store, as their
    migrations make them; read only where a purge is declared."""
    if not any(declaration.kind == "purge" for declaration in declarations):
        return None
    bindings = [b for b in project.d1_bindings if store is None or b["binding"] == store]
    settings = project.worker_vars if isinstance(project.worker_vars, dict) else {}
    return Where(store, {binding["binding"]: schema_of(project, binding) for binding in bindings}, settings)


def _declared_twice(name: str, first: Declaration, again: Declaration) -> Problem:
    """A schedule name given twice: by two declarations, two purges of one table, or a declaration
    and the purge whose schedule is `<table>.purge`."""
    where = f"{first.file}:{first.line}"
    if first.kind == again.kind == "purge":
        table = name.removesuffix(".purge")
        message, mend = (f"table `{table}` is purged twice; first at {where}",
                         f"keep one purge of `{table}`: its schedule `{name}` is keyed by the table")
    elif "purge" in (first.kind, again.kind):
        message, mend = (f"`{name}` is both a declared schedule and a purge's schedule; first at {where}",
                         f"rename the schedule: `{name}` is the name of the hourly purge of its table")
    else:
        message, mend = f"the name is declared twice; first at {where}", "give each schedule a name of its own"
    return Problem("schedule.item_invalid", message, mend, again.file, again.line, again.name)


def _store_required(why: str, file: str, line: int, name: str | None, owners: list[str] | None = None) -> Problem:
    """With several databases and none named, a purge's mend names the one that holds its table."""
    if owners and len(owners) == 1:
        mend = (f'name the store in pyproject.toml: [tool.tickwork] store = "{owners[0]}", '
                "the database whose migrations create the purged table")
    else:
        mend = ("bind one D1 database in the Worker's wrangler configuration, "
                'or name the store in pyproject.toml: [tool.tickwork] store = "<binding>"')
    return Problem("schedule.store_required", why, mend, file, line, name)


def build(root: Path) -> Built:
    """Lays the Worker out in build/app: a copy of the source with the manifest beside its entry.

    Wrangler bundles every module under the directory of `main`, so the generated manifest and
    the code it names must share one; the source tree itself never holds generated files.
    """
    project = load_project(root)
    store, specs, problems, queues = check(project)
    if problems:
        raise BuildFailed(sorted(problems, key=lambda p: (p.file, p.line, p.code)))
    out = project.root / "build" / "app"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(
        project.worker_root, out, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
    )
    manifest = write_manifest(out, store, specs, project.statements_per_tick, queues, retention_ms(project),
                              project.alerts, check_console(project)[0], project.version_metadata,
                              project.wakes if isinstance(project.wakes, str) else None,
                              project.metrics if project.metrics in project.datasets else None)
    ensure_cron_trigger(project.root / project.config_file)
    return Built(project, store, specs, project.statements_per_tick, manifest)


def retention_ms(project: Project) -> int | None:
    value = project.retention
    ms = duration_ms(value) if isinstance(value, str) else None
    return ms if ms is not None and DAY <= ms <= LONGEST else None


def check_retention(project: Project) -> list[Problem]:
    if retention_ms(project) is not None:
        return []
    return [
        Problem(
            "settings.retention_invalid",
            f"retention = {project.retention!r} is not a duration from a day to a century",
            'write how long run records and what operators dealt with are kept, e.g. retention = "30d"',
            "pyproject.toml",
            _line_of(project, "retention"),
        )
    ]


def check_alerts(project: Project) -> list[Problem]:
    """`alerts` names a producer binding of the Worker's configuration, the queue alerts are sent to."""
    value = project.alerts
    bound = [p["binding"] for p in project.queue_producers]
    if value is None or value in bound:
        return []
    what = f"alerts = {value!r} is not a producer binding of {project.config_file}" if isinstance(value, str) else (
        f"alerts = {value!r} is not the name of a producer binding")
    return [
        Problem(
            "settings.alerts_invalid",
            f"{what} (bound: {', '.join(bound) or 'none'})",
            f'add [[queues.producers]] with binding = "{value if isinstance(value, str) else "ALERTS"}" and the '
            f"queue's name to {project.config_file}, and a consumer that sends the email or chat message",
            "pyproject.toml",
            _line_of(project, "alerts"),
        )
    ]


# The most schedules a Worker may declare: an isolate has 128 MB, and at 30,000 calendars of
# distinct crons (the heaviest kind) the Worker's Wasm heap in the host's Pyodide is about 90 MB
# after its first ticks, leaving room for the JavaScript heap and for longer names; 50,000 took
# 120 MB (132 MB with names three times as long)
# (scripts/bench/declared_in_host.mjs checks it). Items handed over at run time are rows of D1,
# not part of the isolate's memory.
MOST_DECLARED = 30_000


def check_declared_count(declarations: list[Declaration]) -> list[Problem]:
    """More declared schedules than an isolate holds: refused at the first one past the most."""
    if len(declarations) <= MOST_DECLARED:
        return []
    past = declarations[MOST_DECLARED]
    return [
        Problem(
            "deployable.too_many_schedules",
            f"{len(declarations):,} schedules are declared; a Worker holds at most {MOST_DECLARED:,} "
            f"within an isolate's 128 MB of memory",
            f"declare at most {MOST_DECLARED:,} and hand the others over at run time as items "
            "(`tickwork.items`), rows of D1 that take no memory of the isolate",
            past.file,
            past.line,
            past.name,
        )
    ]


def check_statements_per_tick(project: Project) -> list[Problem]:
    value = project.statements_per_tick
    if isinstance(value, int) and not isinstance(value, bool) and 10 <= value <= 1000:
        return []
    return [
        Problem(
            "settings.statements_per_tick_invalid",
            f"d1_statements_per_tick = {value!r} is not a whole number from 10 to 1000",
            "leave room under D1's limit of queries an invocation: 900 on the Paid plan, 40 on Free",
            "pyproject.toml",
            _line_of(project, "d1_statements_per_tick"),
        )
    ]


def _line_of(project: Project, key: str) -> int:
    return line_of((project.root / "pyproject.toml").read_text(encoding="utf-8"), ("tool", "tickwork"), key)
