"""A Worker configured by wrangler.jsonc, as Cloudflare's current templates make one, takes
tickwork as one configured by wrangler.toml does: `tickwork init` edits the wrangler.jsonc
(its comments kept), `tickwork build` reads it, `wrangler deploy --dry-run` bundles it, `tickwork
tick` ticks the action into the Worker's own table and `tickwork schedules --local` lists it.

This repository's own `tickwork` runs it (tests/e2e/test_a_worker_of_ones_own.py installs the
wheel), with this repository's node_modules and vendored pins, so that it stays quick."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import ROOT, TEMPLATE_ENTRY, TEMPLATE_WRANGLER_JSONC
from test_a_worker_of_ones_own import PYPROJECT, QUIET, _add_the_schedule, _ok

from tickwork.times import utc
from tickwork_build import jsonc

TICKWORK = ROOT / ".venv" / "bin" / "tickwork"


def _run(root: Path, *command: str) -> subprocess.CompletedProcess:
    shell = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "VIRTUAL_ENV")}
    environment = {**shell, **QUIET, "PATH": f"{TICKWORK.parent}{os.pathsep}{shell.get('PATH', '')}"}
    return subprocess.run(command, cwd=root, env=environment, capture_output=True, text=True, timeout=600)


class Worker:
    def __init__(self, root: Path):
        self.root = root

    def tickwork(self, *args: str) -> subprocess.CompletedProcess:
        return _run(self.root, str(TICKWORK), *args)


@pytest.fixture(scope="module")
def worker(tmp_path_factory):
    root = tmp_path_factory.mktemp("jsonc") / "my-worker"
    (root / "src").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "wrangler.jsonc").write_text(TEMPLATE_WRANGLER_JSONC)
    (root / "src" / "entry.py").write_text(TEMPLATE_ENTRY)
    (root / "node_modules").symlink_to(ROOT / "node_modules")  # the host's Node side, pinned as tickwork's
    shutil.copytree(ROOT / "python_modules", root / "python_modules",  # the runtime's pins, vendored by make setup
                    ignore=shutil.ignore_patterns("tickwork", "__pycache__"))
    worker = Worker(root)
    worker.init = _ok(worker.tickwork("init"))
    _add_the_schedule(root)
    worker.build = _ok(worker.tickwork("build"))
    worker.upload = root / "upload"
    _ok(_run(root, str(root / "node_modules" / ".bin" / "wrangler"), "deploy", "--dry-run", "--outdir", str(worker.upload)))
    return worker


def test_init_edits_the_wrangler_jsonc_keeping_its_comments(worker):
    text = (worker.root / "wrangler.jsonc").read_text()
    config = jsonc.loads(text)

    assert 'wrangler.jsonc: main = "build/app/entry.py" (was "src/entry.py")' in worker.init.stdout
    assert (config["main"], config["triggers"]["crons"]) == ("build/app/entry.py", ["* * * * *"])
    assert config["build"]["command"] == "tickwork build"
    assert "// where the Worker keeps its data" in text and " * Smart Placement" in text


def test_the_build_reads_the_wrangler_jsonc(worker):
    assert "built 1 schedule(s) (count_visits)" in worker.build.stdout


def test_a_dry_run_deploy_of_the_wrangler_jsonc_bundles_the_entry_the_manifest_and_tickwork(worker):
    assert (worker.upload / "entry.py").is_file() and (worker.upload / "tickwork_manifest.py").is_file()
    assert (worker.upload / "python_modules" / "tickwork" / "adapters" / "workers.py").is_file()


def test_a_tick_runs_the_action_into_the_users_own_table(worker):
    _ok(worker.tickwork("tick", "2026-03-02T09:00Z", "--far", "--json"))
    ticked = _ok(worker.tickwork("tick", "2026-03-02T09:01Z", "--far", "--json"))

    runs = [json.loads(line) for line in ticked.stdout.splitlines() if line.startswith("{")]
    assert [(run.get("schedule"), run.get("outcome")) for run in runs] == [("count_visits", "succeeded")]
    visits = _ok(_run(worker.root, str(worker.root / "node_modules" / ".bin" / "wrangler"), "d1", "execute", "DB",
                      "--local", "--json", "--command", "SELECT at FROM visits"))
    assert json.loads(visits.stdout)[0]["results"] == [{"at": utc("2026-03-02 09:01")}]


def test_tickwork_schedules_local_finds_the_store_in_the_wrangler_jsonc(worker):
    listed = _ok(worker.tickwork("schedules", "--local", "--now", "2026-03-02T09:02Z")).stdout

    assert "count_visits" in listed
