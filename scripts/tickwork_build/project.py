"""Where an app's declarations are, and which D1 database keeps its schedules' state.

`pyproject.toml` says where the app is and, with several databases, which one is the store:

    [tool.tickwork]
    source = "src"      # the Worker's code, entry.py at its top
    app = "src/app"     # its domains are src/app/domains/<domain>/
    store = "DB"        # a D1 binding (or database_name) of wrangler.toml
    d1_statements_per_tick = 900   # D1 allows 1,000 queries an invocation (50 on the Free plan)
    alerts = "ALERTS"   # a producer binding of wrangler.toml: schedules failing, ticks stopped

as the document's `application { schedules: { store: main } }` does.
"""

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import jsonc, settings
from .workflows import workflow_bindings
from .problems import BuildFailed, Problem
from .version_metadata import declared_binding
from .metrics import declared_datasets
from .settings import WRANGLER, Settings


DEFAULT_STATEMENTS_PER_TICK = 900
CONFIG_NAMES = ("wrangler.json", "wrangler.jsonc", WRANGLER)  # wrangler's own order
JSON_SUFFIXES = (".json", ".jsonc")


@dataclass(frozen=True)
class Project:
    root: Path
    worker_root: Path  # the Worker's code, entry.py at its top: module names start here
    app: Path
    store: str | None  # as named in [tool.tickwork], if it is
    statements_per_tick: object  # [tool.tickwork] d1_statements_per_tick, as written
    d1_bindings: tuple[dict, ...]
    queue_producers: tuple[dict, ...] = ()  # wrangler.toml's [[queues.producers]]
    queue_consumers: tuple[dict, ...] = ()  # and [[queues.consumers]]
    retention: object = "30d"  # [tool.tickwork] retention: how long run records are kept, as written
    worker_vars: object = None  # wrangler.toml's [vars]: the settings a Worker starts with, as written
    problems: tuple[Problem, ...] = ()  # settings of the wrong type, read as their defaults
    config_file: str = WRANGLER  # the Worker's configuration: wrangler.toml, wrangler.jsonc or wrangler.json
    alerts: object = None  # [tool.tickwork] alerts: the producer binding alerts go to, as written
    wakes: object = None  # [tool.tickwork] wakes: the producer binding wakes go to, as written (wakes.py)
    console: object = None  # [tool.tickwork]'s console keys as written (console.py checks them)
    version_metadata: object = None  # [tool.tickwork] version_metadata, as written (version_metadata.py checks it)
    version_binding: str | None = None  # the configuration's [version_metadata] binding, where it declares one
    metrics: object = None  # [tool.tickwork] metrics: the Analytics Engine binding, as written (metrics.py)
    datasets: tuple[str, ...] = ()  # the configuration's analytics_engine_datasets bindings
    dates: object = None  # [tool.tickwork.dates]: named lists of skip dates, as written (dates.py checks them)
    workflows: tuple[str, ...] = ()  # the bindings of the configuration's [[workflows]] (workflows.py)

    @property
    def app_package(self) -> str:
        return ".".join(self.app.relative_to(self.worker_root).parts)

    def domains(self) -> list[str]:
        directory = self.app / "domains"
        if not directory.is_dir():
            return []
        return sorted(
            child.name
            for child in directory.iterdir()
            if child.is_dir() and not child.name.startswith(("_", "."))
        )

    def domain_module(self, domain: str) -> str:
        return f"{self.app_package}.domains.{domain}"

    def relative(self, path: str | Path) -> str:
        try:
            return str(Path(path).resolve().relative_to(self.root.resolve()))
        except ValueError:
            return str(path)


def config_name(root: Path) -> str | Problem:
    """The Worker's configuration as wrangler finds it: wrangler.json, then wrangler.jsonc, then
    wrangler.toml; a problem where there are two, as the other would be unread."""
    found = [name for name in CONFIG_NAMES if (root / name).exists()]
    if len(found) > 1:
        return Problem("settings.file_invalid",
                       f"{root} has {' and '.join(found)}: wrangler reads {found[0]} alone, so the other is not "
                       "the Worker's configuration", f"keep one of them: merge what {found[1]} says into "
                       f"{found[0]} and remove {found[1]}", found[1], 1)
    return found[0] if found else WRANGLER


def load_project(root: Path) -> Project:
    """The project at `root`; raises BuildFailed, every problem said, where its pyproject.toml
    or wrangler configuration (wrangler.toml, wrangler.jsonc or wrangler.json) is missing or
    does not parse, or its settings leave no app to read. Other settings of the wrong type are
    the project's `problems`, read as their defaults meanwhile."""
    root = root.resolve()
    name = config_name(root)
    if isinstance(name, Problem):
        raise BuildFailed([name])
    pyproject, wrangler = _toml(root, "pyproject.toml"), _toml(root, name)
    problems = [problem for problem in (pyproject, wrangler) if isinstance(problem, Problem)]
    if problems:
        raise BuildFailed(problems)
    read = Settings(_text(root, "pyproject.toml"), _text(root, name), wrangler_file=name)
    tickwork = settings.tickwork_table(read, pyproject)
    if not read.stops:
        worker_root, app = settings.directories(read, root, tickwork)
    if read.stops:
        raise BuildFailed(read.problems)
    return Project(
        root=root,
        worker_root=worker_root,
        app=app,
        store=settings.store(read, tickwork),
        statements_per_tick=tickwork.get("d1_statements_per_tick", DEFAULT_STATEMENTS_PER_TICK),
        retention=tickwork.get("retention", "30d"),
        d1_bindings=settings.d1_bindings(read, wrangler),
        queue_producers=settings.queues(read, wrangler, "producers", "binding", "queue"),
        queue_consumers=settings.queues(read, wrangler, "consumers", "queue"),
        worker_vars=wrangler.get("vars"),
        problems=tuple(read.problems),
        config_file=name,
        alerts=tickwork.get("alerts"),
        wakes=tickwork.get("wakes"),
        console={key: value for key, value in tickwork.items() if key.startswith("console")},
        version_metadata=tickwork.get("version_metadata"),
        version_binding=declared_binding(wrangler),
        dates=tickwork.get("dates"),
        metrics=tickwork.get("metrics"),
        datasets=declared_datasets(wrangler),
        workflows=workflow_bindings(wrangler),
    )


def _text(root: Path, name: str) -> str:
    return (root / name).read_text(encoding="utf-8")


def _toml(root: Path, name: str) -> dict | Problem:
    """The file read as TOML, or as JSONC where its name ends so; a problem where it cannot be."""
    try:
        text = (root / name).read_text(encoding="utf-8")
        if name.endswith(JSON_SUFFIXES):
            read = jsonc.loads(text)
            if not isinstance(read, dict):
                raise jsonc.JsoncError("the configuration is not an object ({ ... })", 1)
            return read
        return tomllib.loads(text)
    except FileNotFoundError:
        return Problem("settings.file_invalid", f"{root} has no {name}",
                       "build from the directory of pyproject.toml and the Worker's wrangler.toml "
                       "(or wrangler.jsonc)", name, 1)
    except OSError as error:  # a directory, say
        return Problem("settings.file_invalid", f"{name} cannot be read: {error.strerror}",
                       f"make {name} a file the build can read", name, 1)
    except RecursionError:
        return Problem("settings.file_invalid", f"{name} nests its arrays or tables too deeply to read",
                       "write the settings with arrays and tables a few levels deep", name, 1)
    except jsonc.JsoncError as error:
        return Problem("settings.file_invalid", f"{name} is not valid JSON (with comments): {error.reason}",
                       "fix the JSON at this line", name, error.line)
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        at = re.search(r"at line (\d+)", str(error))
        line = int(at.group(1)) if at else 1
        return Problem("settings.file_invalid", f"{name} is not valid TOML: {error}",
                       "fix the TOML at this line", name, line)


def resolve_store(project: Project) -> tuple[str | None, str]:
    """The binding that keeps schedule state, or None with the reason there is none."""
    bindings = project.d1_bindings
    if project.store is not None:
        for binding in bindings:
            if project.store in (binding.get("binding"), binding.get("database_name")):
                return binding["binding"], ""
        return None, f"the store `{project.store}` named in pyproject.toml is not bound in {project.config_file}"
    if len(bindings) == 1:
        return bindings[0]["binding"], ""
    if not bindings:
        return None, f"{project.config_file} binds no D1 database to keep schedule state in"
    names = ", ".join(binding["binding"] for binding in bindings)
    return None, f"{project.config_file} binds several D1 databases ({names}) and none is named the store"
