"""End-to-end: the real entry, bundled by `wrangler deploy --dry-run`, run by the local Workers
host (Pyodide 0.28.2, the `workers-runtime-sdk` wrappers, Miniflare's D1).

One host serves the whole session; each test starts from freshly migrated D1 tables. The host
runs a copy of this repository's Worker with one extra domain (`e2e`) whose actions fail.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WRANGLER = ROOT / "node_modules" / ".bin" / "wrangler"
HOST = ROOT / "scripts" / "host" / "cli.mjs"
QUIET = {
    "WRANGLER_SEND_METRICS": "false",
    "WRANGLER_SEND_ERROR_REPORTS": "false",
    "WRANGLER_HIDE_BANNER": "true",
    "NO_COLOR": "1",
}

E2E_DOMAIN = '''\
"""Actions that fail on purpose, for the end-to-end tests."""

from tickwork import ActionError, calendar, call, schedule


@schedule(every="1d")
async def always_fails():
    raise ValueError("the e2e action fails on purpose")


@schedule(every="1d")
async def refuses():
    raise ActionError("e2e_unavailable", "the e2e action refuses on purpose")


@calendar("30 2 * * *", zone="Europe/Berlin", repeated="both")
async def nightly():
    print(f"e2e: nightly for {call.at}")
'''


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "e2e: runs the bundled Worker on the local Workers host (Pyodide + Miniflare)"
    )


def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.fspath).parents:
            item.add_marker(pytest.mark.e2e)


def _env():
    return {**os.environ, **QUIET}


def _without_build_command(wrangler_toml: str) -> str:
    """The copy is built by the fixture itself; wrangler's `[build] command` (make build) would
    look for this repository's Makefile."""
    kept, skipping = [], False
    for line in wrangler_toml.splitlines():
        if re.match(r"^\s*\[", line):
            skipping = line.strip() == "[build]"
        if not skipping:
            kept.append(line)
    return "\n".join(kept) + "\n"


def make_project(directory: Path) -> Path:
    """A copy of the example project with the `e2e` domain, built and bundled."""
    for name in ("src", "migrations"):
        shutil.copytree(ROOT / name, directory / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "python_modules", directory / "python_modules", symlinks=False)
    shutil.copy(ROOT / "pyproject.toml", directory / "pyproject.toml")
    (directory / "wrangler.toml").write_text(_without_build_command((ROOT / "wrangler.toml").read_text()))
    domain = directory / "src" / "app" / "domains" / "e2e"
    domain.mkdir()
    (domain / "__init__.py").write_text(E2E_DOMAIN)
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build.py"), str(directory)],
        check=True, capture_output=True, text=True,
    )
    dry_run(directory, directory / "build" / "worker")
    return directory


def dry_run(project: Path, outdir: Path) -> None:
    done = subprocess.run(
        [str(WRANGLER), "deploy", "--dry-run", "--outdir", str(outdir)],
        cwd=project, env=_env(), capture_output=True, text=True,
    )
    assert done.returncode == 0, f"wrangler deploy --dry-run failed:\n{done.stdout}\n{done.stderr}"


@dataclass
class LocalHost:
    """The host process, and D1 as `wrangler d1 execute --local` sees it."""

    project: Path
    state: Path
    url: str
    process: subprocess.Popen
    output: list[str] = field(default_factory=list)

    def _call(self, path: str, method: str = "GET", timeout: float = 120) -> dict:
        request = urllib.request.Request(
            self.url + path, method=method, headers={"accept": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            return json.load(error)

    def tick(self, time_ms: int, cron: str = "* * * * *") -> dict:
        """One scheduled event: `{"ok", "runs", "lines", "error"?}`."""
        query = urllib.parse.urlencode({"cron": cron, "time": time_ms})
        return self._call(f"/cdn-cgi/handler/scheduled?{query}")

    def reset(self) -> dict:
        return self._call("/cdn-cgi/tickwork/reset", method="POST")

    def modules(self) -> dict:
        return self._call("/cdn-cgi/tickwork/modules")

    def d1(self, sql: str) -> list[dict]:
        """Rows of one query, through `wrangler d1 execute --local --json`."""
        done = subprocess.run(
            [str(WRANGLER), "d1", "execute", "DB", "--local", "--persist-to", str(self.state),
             "--json", "--command", sql],
            cwd=self.project, env=_env(), capture_output=True, text=True,
        )
        assert done.returncode == 0, f"wrangler d1 execute failed:\n{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout)[-1]["results"]

    def dry_run(self, outdir: Path) -> None:
        """`wrangler deploy --dry-run --outdir` of the project the host runs."""
        dry_run(self.project, outdir)

    def run_host(self, *args: str) -> subprocess.CompletedProcess:
        """Another host process on the same D1 state, e.g. a one-shot `tick`."""
        return subprocess.run(
            ["node", str(HOST), *args, "--config", str(self.project / "wrangler.toml"),
             "--bundle", str(self.project / "build" / "worker"), "--persist-to", str(self.state)],
            cwd=self.project, env=_env(), capture_output=True, text=True, timeout=180,
        )


@pytest.fixture(scope="session")
def host(tmp_path_factory):
    project = make_project(tmp_path_factory.mktemp("project"))
    state = project / "state"
    process = subprocess.Popen(
        ["node", str(HOST), "dev", "--no-timer", "--port", "0",
         "--config", str(project / "wrangler.toml"), "--bundle", str(project / "build" / "worker"),
         "--persist-to", str(state)],
        cwd=project, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    output: list[str] = []
    url = None
    for line in process.stdout:
        output.append(line)
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            url = found.group(1)
            break
    if url is None:
        process.wait(timeout=30)
        pytest.fail("the host did not start:\n" + "".join(output))
    threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
    yield LocalHost(project, state, url, process, output)
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()


@pytest.fixture(autouse=True)
def fresh_d1(request):
    """Fresh D1 tables for each test that uses the host."""
    if "host" in request.fixturenames:
        request.getfixturevalue("host").reset()
    yield
