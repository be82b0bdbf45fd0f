"""tickwork added to a Worker of one's own, as a user would: a minimal Python Worker made the way
Cloudflare's Python Worker template makes one (its own pyproject.toml, a wrangler.toml with a D1
binding, src/entry.py whose `Default` answers "hello"), the two wheels built from this repository
(the runtime `tickwork` and the tools `tickwork-dev`) installed into its virtualenv as
`tickwork[cli]`, `tickwork init`, a `.jadpo` schedule whose action writes to the Worker's own D1
table through its binding, then `tickwork build`, a dry-run deploy, `tickwork dev` ticking it and
`tickwork schedules --local`. Everything runs in a temporary folder, from
PyPI and the npm registry alone (their caches first)."""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import NamedTuple

import pytest
from helpers import ROOT, TEMPLATE_ENTRY, TEMPLATE_WRANGLER_TOML, stop

from tickwork.times import utc

QUIET = {"WRANGLER_SEND_METRICS": "false", "WRANGLER_SEND_ERROR_REPORTS": "false", "NO_COLOR": "1"}
NOT_THE_WHEEL = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "python_modules", "build", ".wrangler", "tests", "__pycache__",
    "*.egg-info", ".pytest_cache",
)
PYPROJECT = """\
[project]
name = "my-worker"
version = "0.1.0"
description = "A Python Worker"
requires-python = ">=3.13"
dependencies = []

[dependency-groups]
dev = ["workers-py", "workers-runtime-sdk"]
"""
# The action writes through the Worker's own binding, `tickwork.env.DB`.
VISITS = """\
from tickwork import clock, env


async def count_visit():
    await env.DB.prepare("INSERT INTO visits (at) VALUES (?1)").bind(clock.now_ms).run()
"""
SCHEDULE = """\
/// A row in the Worker's own table each minute.
schedule count_visits {
    every: 1m
    run: count_visit()
}
"""


class Worker(NamedTuple):
    root: Path
    wheel: Path  # the runtime's
    tools: Path  # tickwork-dev's
    init: subprocess.CompletedProcess
    init_again: subprocess.CompletedProcess
    build: subprocess.CompletedProcess
    upload: Path
    url: str

    def tickwork(self, *args: str) -> subprocess.CompletedProcess:
        return _run([str(self.root / ".venv" / "bin" / "tickwork"), *args], self.root)

    def get(self, path: str) -> tuple[int, str]:
        request = urllib.request.Request(self.url + path, headers={"Accept": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as answer:
            return answer.status, answer.read().decode()

    def tick(self, at: int) -> list[dict]:
        return json.loads(self.get(f"/cdn-cgi/handler/scheduled?cron=*+*+*+*+*&time={at}&far=1")[1])["runs"]


def _environment() -> dict[str, str]:
    shell = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV")}
    return {**shell, **QUIET}


def _run(command: list[str], cwd: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, env=_environment(), capture_output=True, text=True, timeout=timeout)


def _ok(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert done.returncode == 0, f"{' '.join(map(str, done.args))} failed:\n{done.stdout}\n{done.stderr}"
    return done


def _the_template(root: Path) -> None:
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "wrangler.toml").write_text(TEMPLATE_WRANGLER_TOML)
    (root / "src" / "entry.py").write_text(TEMPLATE_ENTRY)


def _add_the_schedule(root: Path) -> None:
    domain = root / "src" / "app" / "domains" / "visits"
    (domain / "schedules").mkdir(parents=True)
    (domain / "__init__.py").write_text(VISITS)
    (domain / "schedules" / "count_visits.jadpo").write_text(SCHEDULE)
    (root / "migrations" / "0100_visits.sql").write_text("CREATE TABLE visits (at INTEGER NOT NULL);\n")


def _started(root: Path, process: subprocess.Popen, stderr: list[str]) -> str:
    deadline = time.monotonic() + 300
    while process.poll() is None and time.monotonic() < deadline:
        found = re.search(r"listening on (http://\S+)", "".join(stderr))
        if found:
            return found.group(1)
        time.sleep(0.2)
    pytest.fail("tickwork dev did not start:\n" + "".join(stderr))


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    here = tmp_path_factory.mktemp("own")
    source, wheels, root = here / "tickwork", here / "wheels", here / "my-worker"
    shutil.copytree(ROOT, source, ignore=NOT_THE_WHEEL)
    for project in (source, source / "scripts"):
        _ok(_run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check",
                  "-w", str(wheels), str(project)], here))
    [wheel], [tools] = wheels.glob("tickwork-*.whl"), wheels.glob("tickwork_dev-*.whl")
    _the_template(root)
    _ok(_run([sys.executable, "-m", "venv", ".venv"], root))
    # tickwork[cli] needs tickwork-dev at its version: the wheel beside it, named so no index is asked.
    _ok(_run([str(root / ".venv" / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
              f"{wheel}[cli]", str(tools)], root))
    tickwork = str(root / ".venv" / "bin" / "tickwork")
    init, init_again = _ok(_run([tickwork, "init"], root)), _run([tickwork, "init"], root)
    _add_the_schedule(root)
    build = _run([tickwork, "build"], root)
    upload = here / "upload"
    _ok(_run(["npx", "wrangler", "deploy", "--dry-run", "--outdir", str(upload)], root))
    process = subprocess.Popen([tickwork, "dev", "--no-timer", "--port", "0"], cwd=root, env=_environment(),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    output: list[str] = []
    threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
    try:
        yield Worker(root, wheel, tools, init, init_again, build, upload, _started(root, process, output))
    finally:
        stop(process)


def _names_and_metadata(wheel: Path) -> tuple[set[str], str]:
    """A wheel's files, and its metadata's fields: without the description (the readme) after them."""
    with zipfile.ZipFile(wheel) as opened:
        names = set(opened.namelist())
        [metadata] = [name for name in names if name.endswith(".dist-info/METADATA")]
        return names, opened.read(metadata).decode().split("\n\n", 1)[0]


def test_the_wheels_are_pure_python_the_runtime_apart_from_the_build_the_command_the_host_and_migrations(worker):
    names, metadata = _names_and_metadata(worker.wheel)
    tool_names, tools_metadata = _names_and_metadata(worker.tools)

    assert worker.wheel.name == "tickwork-0.1.0-py3-none-any.whl"
    assert worker.tools.name == "tickwork_dev-0.1.0-py3-none-any.whl"
    assert {"tickwork/app.py", "tickwork/adapters/workers.py"} <= names
    assert {"tickwork_build/build.py", "tickwork_cli/cli.py", "tickwork_tool/command.py",
            "tickwork_tool/host/cli.mjs", "tickwork_tool/host/bridge.py", "tickwork_tool/node/package-lock.json",
            "tickwork_tool/migrations/0001_schedules.sql"} <= tool_names
    assert all(name.startswith(("tickwork/", "tickwork-0.1.0.dist-info/")) for name in names), "the runtime alone"
    assert not any(name.startswith("tickwork/") for name in tool_names)
    assert not any(name.startswith(("app/", "tickwork_tool/migrations/01")) for name in names | tool_names), \
        "not the example's"
    assert "Requires-Dist: croniter==7.0.0" in metadata and "Requires-Dist: tzdata==" in metadata
    assert 'Requires-Dist: tickwork-dev==0.1.0; extra == "cli"' in metadata and "pydantic" not in metadata
    assert "Requires-Dist: tickwork==0.1.0" in tools_metadata and "Requires-Dist: pydantic==2.14.4" in tools_metadata


def test_tickwork_init_says_each_change_it_makes(worker):
    said = worker.init.stdout

    assert 'wrangler.toml: main = "build/app/entry.py" (was "src/entry.py")' in said
    assert 'wrangler.toml: [build] command = ".venv/bin/tickwork build"' in said
    assert 'wrangler.toml: [triggers] crons has "* * * * *"' in said
    assert "pyproject.toml: added [tool.tickwork]" in said
    assert "added migrations/0001_schedules.sql: tickwork's migration" in said
    assert "src/entry.py: Default has scheduled() and queue()" in said
    assert "installed miniflare" in said


def test_tickwork_init_run_again_changes_nothing(worker):
    assert worker.init_again.returncode == 0
    assert worker.init_again.stdout == "tickwork init: nothing to change, tickwork is already in this Worker\n"


def test_tickwork_build_passes_and_vendors_the_runtime(worker):
    assert worker.build.returncode == 0, worker.build.stderr
    assert "built 1 schedule(s) (count_visits)" in worker.build.stdout
    assert (worker.root / "python_modules" / "tickwork" / "tick" / "pipeline.py").is_file()


def test_a_dry_run_deploy_bundles_tickwork_croniter_tzdata_and_the_users_modules(worker):
    modules = worker.upload / "python_modules"

    assert (modules / "tickwork" / "adapters" / "workers.py").is_file()
    assert (modules / "croniter" / "croniter.py").is_file()
    assert (modules / "tzdata" / "zoneinfo" / "Europe" / "Berlin").is_file()
    assert (worker.upload / "entry.py").is_file() and (worker.upload / "tickwork_manifest.py").is_file()
    assert (worker.upload / "app" / "domains" / "visits" / "__init__.py").is_file()
    assert not (modules / "tickwork_build").exists() and not (modules / "pydantic").exists()
    uploaded = [path.relative_to(worker.upload).as_posix() for path in worker.upload.rglob("*") if path.is_file()]
    assert [name for name in uploaded if name.split("/")[0] in ("tickwork_cli", "tickwork_tool")
            or "/tickwork_cli/" in name or "/tickwork_tool/" in name or name.endswith((".mjs", ".sql"))] == []


def test_tickwork_dev_ticks_the_action_into_the_users_own_table(worker):
    worker.tick(utc("2026-03-02 09:00"))
    runs = worker.tick(utc("2026-03-02 09:01"))

    assert [(run["schedule"], run["outcome"]) for run in runs] == [("count_visits", "succeeded")]
    visits = _ok(_run([str(worker.root / "node_modules" / ".bin" / "wrangler"), "d1", "execute", "DB", "--local",
                       "--json", "--command", "SELECT at FROM visits"], worker.root))
    assert json.loads(visits.stdout)[0]["results"] == [{"at": utc("2026-03-02 09:01")}]


def test_the_users_fetch_still_answers_hello(worker):
    assert worker.get("/") == (200, "hello")


def test_tickwork_schedules_local_lists_the_schedule(worker):
    listed = _ok(worker.tickwork("schedules", "--local", "--now", "2026-03-02T09:02Z")).stdout

    assert re.search(r"count_visits\s+every\s+every minute", listed)
