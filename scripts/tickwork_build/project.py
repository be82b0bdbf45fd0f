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

from .problems import BuildFailed, Problem


DEFAULT_STATEMENTS_PER_TICK = 900


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
    alerts: object = None  # [tool.tickwork] alerts: the producer binding alerts go to, as written

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


def load_project(root: Path) -> Project:
    """The project at `root`; raises BuildFailed, every problem said, where its pyproject.toml
    or wrangler.toml is missing or not TOML."""
    root = root.resolve()
    pyproject, wrangler = _toml(root, "pyproject.toml"), _toml(root, "wrangler.toml")
    problems = [problem for problem in (pyproject, wrangler) if isinstance(problem, Problem)]
    if problems:
        raise BuildFailed(problems)
    settings = pyproject.get("tool", {}).get("tickwork", {})
    d1 = wrangler.get("d1_databases", [])
    return Project(
        root=root,
        worker_root=root / settings.get("source", "src"),
        app=root / settings.get("app", "src/app"),
        store=settings.get("store"),
        statements_per_tick=settings.get("d1_statements_per_tick", DEFAULT_STATEMENTS_PER_TICK),
        retention=settings.get("retention", "30d"),
        # wrangler itself refuses a database without a binding name; the build leaves them out
        d1_bindings=tuple(b for b in d1 if isinstance(b, dict) and isinstance(b.get("binding"), str))
        if isinstance(d1, list) else (),
        queue_producers=_entries(wrangler, "producers", "binding", "queue"),
        queue_consumers=_entries(wrangler, "consumers", "queue"),
        worker_vars=wrangler.get("vars"),
        alerts=settings.get("alerts"),
    )


def _entries(wrangler: dict, kind: str, *keys: str) -> tuple[dict, ...]:
    """wrangler.toml's [[queues.<kind>]] that name what they must (wrangler refuses the rest)."""
    queues = wrangler.get("queues", {})
    entries = queues.get(kind, []) if isinstance(queues, dict) else []
    return tuple(e for e in entries if isinstance(e, dict) and all(isinstance(e.get(k), str) for k in keys))


def _toml(root: Path, name: str) -> dict | Problem:
    try:
        return tomllib.loads((root / name).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Problem("settings.file_invalid", f"{root} has no {name}",
                       "build from the directory of wrangler.toml and pyproject.toml", name, 1)
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
        return None, f"the store `{project.store}` named in pyproject.toml is not bound in wrangler.toml"
    if len(bindings) == 1:
        return bindings[0]["binding"], ""
    if not bindings:
        return None, "wrangler.toml binds no D1 database to keep schedule state in"
    names = ", ".join(binding["binding"] for binding in bindings)
    return None, f"wrangler.toml binds several D1 databases ({names}) and none is named the store"
