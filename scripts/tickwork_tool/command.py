"""`tickwork VERB`: `init`, `build`, `dev` and `tick` for the Worker in the current folder (or
`--project DIR`), and the operator's verbs (`schedules`, `why`, `pause`, ...: tickwork_cli)."""

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tickwork_build.problems import BuildFailed

from . import bundling, node
from .vendoring import sync_migrations, vendor_runtime

OWN = {"init", "build", "dev", "tick"}
# The modules the tools need besides the runtime (scripts/pyproject.toml's, which `tickwork[cli]`
# installs): a Python that runs the tools from a checkout may lack them.
CLI_EXTRA = {"pydantic", "pydantic_core", "annotated_types", "typing_extensions", "typing_inspection"}
USAGE = """usage: tickwork VERB ...

For the Worker in this folder:
  init              add tickwork to it: migrations, cron trigger, [build] command, [tool.tickwork], entry lines
  build             validate the app's declarations and lay the Worker out in build/app (wrangler's [build] command)
  dev [ARGS]        build, bundle and run it on the local host, offline, ticking each minute \
(--port, --json, --fresh, --no-timer)
  tick TIME [ARGS]  build, bundle and run one tick at TIME (ISO UTC, epoch ms or now) against the local D1 \
(--far, --json)

The operator's verbs (tickwork schedules --help, ...):
  schedules, history, why, pause, resume, run, deliveries, retry, dismiss, cancel, backfill, remake, terminate,
  backfills, deploys, status
"""
HOST_USAGE = {
    "dev": """usage: tickwork dev [--port N] [--json] [--fresh] [--no-timer] [--persist-to DIR] [--config FILE]

Build, bundle and run the Worker in this folder on the local host, offline: it serves the Worker's
fetch on the port (default 8787) and ticks at each whole minute.
  --port N          the port to serve on (default 8787)
  --json            one JSON object per run or skip on stdout; the rest on stderr
  --fresh           empty the local D1 first, then apply the migrations
  --no-timer        tick only when asked (GET /cdn-cgi/handler/scheduled?time=...)
  --persist-to DIR  wrangler's state directory (default .wrangler/state)
  --config FILE     wrangler.json, wrangler.jsonc or wrangler.toml (default: the first there)
""",
    "tick": """usage: tickwork tick TIME [--far] [--cron CRON] [--json] [--persist-to DIR] [--config FILE]

Build, bundle and run one tick of the Worker in this folder at TIME against the local D1, and exit.
  TIME              2026-01-05T09:15Z (ISO, UTC unless it says otherwise), epoch ms, or now
  --far             allow a TIME more than a day from now (its due times stay in the local D1)
  --cron CRON       the cron the tick is for (default: the Worker's trigger)
  --json            one JSON object per run or skip on stdout; the rest on stderr
  --persist-to DIR  wrangler's state directory (default .wrangler/state)
  --config FILE     wrangler.json, wrangler.jsonc or wrangler.toml (default: the first there)
""",
}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        return _dispatch(argv)
    except ModuleNotFoundError as missing:
        if (missing.name or "").split(".")[0] not in CLI_EXTRA:
            raise
        print(f"tickwork {argv[0]}: {missing.name} is not installed, and the build needs it: install tickwork "
              'with its extra, pip install "tickwork[cli]" (or uv add --dev "tickwork[cli]")', file=sys.stderr)
        return 1


def _dispatch(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0 if argv else 2
    if argv[0] not in OWN:
        from tickwork_cli.cli import main as operate
        return operate(argv)
    verb, rest = argv[0], argv[1:]
    if verb == "init":
        from .init import main as init
        return init(rest)
    if verb == "build":
        return build(build_parser().parse_args(rest).project)
    return host(verb, rest)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tickwork build", description="Validate the app's declarations and lay "
                                     "the Worker out in build/app (wrangler's [build] command).")
    parser.add_argument("project", nargs="?", default=".", type=Path, help="the directory of wrangler.toml")
    return parser


def build(root: Path, out=sys.stdout) -> int:
    """Migrations, the build, the runtime vendored: what the Worker needs to deploy."""
    from tickwork_build.build import build as lay_out
    from tickwork_build.project import load_project, resolve_store

    def fail(lines: list[str]) -> int:
        for line in lines:
            print(line, file=sys.stderr)
        print(f"build failed: {len(lines)} problem(s)", file=sys.stderr)
        return 1

    try:
        project = load_project(root)
        changes = []
        store, _ = resolve_store(project)
        for binding in project.d1_bindings:
            if binding["binding"] == store:
                changes += sync_migrations(project.root / binding.get("migrations_dir", "migrations"), project.root)
        built = lay_out(root)
        changes += vendor_runtime(project.root, (project.worker_root / "tickwork").is_dir())
    except BuildFailed as failed:
        return fail([str(problem) for problem in failed.problems])
    except ValueError as error:
        return fail([f"tickwork build: {error}"])
    for change in changes:
        print(change, file=out)
    names = ", ".join(spec.name for spec in built.schedules) or "none"
    print(f"built {len(built.schedules)} schedule(s) ({names}) into {built.manifest}", file=out)
    return 0


def host(verb: str, rest: list[str]) -> int:
    """`dev` and `tick`: the local host on the Worker's bundle. The set-up's output goes to
    stderr, so that with --json stdout holds only the host's JSON lines."""
    root = Path.cwd()
    if {"-h", "--help"} & set(rest):
        print(HOST_USAGE[verb], end="")
        return 0
    if verb == "tick":
        if not rest:
            print("usage: tickwork tick TIME [--far] [--json]  (TIME: 2026-01-05T09:15Z, epoch ms or now)",
                  file=sys.stderr)
            return 2
        if not rest[0].startswith("--time"):  # a TIME of `-5` is a time the host refuses as such
            rest = [f"--time={rest[0]}", *rest[1:]]
    try:
        node.install(root, say=lambda line: print(line, file=sys.stderr))
    except node.NodeMissing as error:
        print(f"tickwork {verb}: {error}", file=sys.stderr)
        return 1
    made = bundle(root)
    if made:
        return made
    command = ["node", str(node.host_cli(root)), verb, *rest]
    sys.stdout.flush(), sys.stderr.flush()
    os.execvpe(command[0], command, node.environment())  # Ctrl-C and the exit code are the host's own


def bundle(root: Path) -> int:
    """The build and `wrangler deploy --dry-run` into build/worker, where a source changed."""
    try:
        seen = bundling.sources(root)
    except BuildFailed:
        seen = {}  # the build says what is wrong
    if seen and bundling.current(root, seen):
        print("tickwork: the bundle in build/worker is as its sources are; not bundled again", file=sys.stderr)
        return 0
    if build(root, out=sys.stderr):
        return 1
    shutil.rmtree(root / "build" / "worker", ignore_errors=True)  # wrangler never empties its --outdir
    bundled = subprocess.run([*node.wrangler(root), "deploy", "--dry-run", "--outdir", "build/worker"],
                             cwd=root, env=node.environment(), stdout=sys.stderr)
    if bundled.returncode:
        return bundled.returncode
    if seen:
        bundling.stamp(root, seen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
