"""Deploys in the history on the Workers runtime (issue 25): a Worker with a version-metadata
binding (`[version_metadata]` in wrangler.toml, named by `[tool.tickwork] version_metadata`) is
deployed, ticked, deployed again with a changed declared set and ticked: its local D1 keeps one
marker a deploy, each with the version id the binding gave that deploy, and `tickwork deploys`
says what the second one removed and changed."""

import json
import os
import re
import subprocess
import sys

from conftest import dry_run, make_project, running_host
from helpers import ROOT

from tickwork.times import MINUTE, utc
from tickwork_cli.wrangler_d1 import QUIET

NINE = utc("2026-01-05 09:00")
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def rebuilt(project):
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build.py"), str(project)],
                   check=True, capture_output=True, text=True)
    dry_run(project, project / "build" / "worker")


def deploys(project, state, now):
    env = {**os.environ, **QUIET, "PYTHONPATH": f"{ROOT / 'scripts'}{os.pathsep}{ROOT / 'src'}"}
    done = subprocess.run([sys.executable, "-m", "tickwork_cli", "deploys", "--local", "--persist-to", str(state),
                           "--now", str(now), *(["--json"])], cwd=project, env=env, capture_output=True, text=True,
                          timeout=180)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_redeploy_with_a_changed_declared_set_is_marked_once_with_its_version_id(tmp_path):
    project = make_project(tmp_path / "project")
    pyproject = project / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace(
        "[tool.tickwork]\n", '[tool.tickwork]\nversion_metadata = "CF_VERSION_METADATA"\n', 1))
    with (project / "wrangler.toml").open("a") as wrangler:
        wrangler.write('\n[version_metadata]\nbinding = "CF_VERSION_METADATA"\n')
    rebuilt(project)
    state = tmp_path / "state"
    with running_host(project, state=state) as first:
        assert first.tick(NINE)["ok"]
        assert first.tick(NINE + MINUTE)["ok"]

    schedules = project / "src" / "app" / "domains" / "planning" / "schedules"
    census = schedules / "chore_census.jadpo"
    census.write_text(census.read_text().replace("every: 15m", "every: 30m"))
    (schedules / "sweep.jadpo").unlink()
    rebuilt(project)
    with running_host(project, state=state) as second:
        assert second.tick(NINE + 2 * MINUTE)["ok"]
        assert second.tick(NINE + 3 * MINUTE)["ok"]

    newest, oldest = deploys(project, state, NINE + 4 * MINUTE)["deploys"]
    assert UUID.fullmatch(newest["version"]) and UUID.fullmatch(oldest["version"])
    assert newest["version"] != oldest["version"]
    assert (newest["added"], newest["removed"], newest["changed"]) == ([], ["sweep"], {"chore_census": ["form"]})
    assert "chore_census" in oldest["added"] and "sweep" in oldest["added"]
    assert newest["at"]["ms"] == NINE + 2 * MINUTE
    assert newest["words"] == (f"deployed 2026-01-05 09:02 UTC (version {newest['version'][:8]}…): "
                               "removed sweep, changed form of chore_census")
