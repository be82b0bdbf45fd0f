"""Issue 27, runs through Workflows, end to end on the local host: a copy of the example project
binds a Workflow of its own (JavaScript, `workflows.mjs` beside wrangler.toml, run by Miniflare's
Workflows: steps, a sleep, and one that errors), and three `.jadpo` schedules name it. Racing ticks
create each instance once; a later tick settles them (complete, errored); `tickwork terminate RUN`
has the next tick terminate the one still sleeping. One host session of its own."""

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import ROOT, dry_run, make_project, running_host

from tickwork_cli.wrangler_d1 import QUIET
from tickwork.times import utc

WORKFLOWS_TOML = """
[[workflows]]
binding = "EXPORTS"
name = "e2e-exports"
class_name = "Exports"
script_name = "e2e-exports-worker"
"""

# The Workflow: a step, a sleep of a second, then a step that fails for `export_fails`, and a
# sleep of an hour for `export_long` (terminated before it ends).
WORKFLOWS_MJS = """\
import { WorkflowEntrypoint } from 'cloudflare:workers';

export class Exports extends WorkflowEntrypoint {
  async run(event, step) {
    const { schedule, at, attempt } = event.payload;
    const rows = await step.do('count the rows', async () => 12);
    await step.sleep('let the warehouse settle', '1 second');
    if (schedule === 'export_fails') {
      await step.do('upload', { retries: { limit: 0, delay: 0 } }, async () => {
        throw new Error('the warehouse refused the upload');
      });
    }
    if (schedule === 'export_long') await step.sleep('wait for the night', '1 hour');
    return { rows, at, attempt };
  }
}
"""

SCHEDULES = {
    name: f"/// The warehouse export, through the EXPORTS Workflow.\nschedule {name} {{\n    every: 1h\n"
          f"    workflow: EXPORTS\n}}\n"
    for name in ("export_ok", "export_fails", "export_long")
}

NOON = utc("2026-01-05 12:00")


@pytest.fixture(scope="module")
def flows_host(tmp_path_factory):
    project = make_project(tmp_path_factory.mktemp("workflows"))
    with (project / "wrangler.toml").open("a") as toml:
        toml.write(WORKFLOWS_TOML)
    (project / "workflows.mjs").write_text(WORKFLOWS_MJS)
    domain = project / "src" / "app" / "domains" / "exports"
    (domain / "schedules").mkdir(parents=True)
    (domain / "__init__.py").write_text('"""Exports, run by the EXPORTS Workflow."""\n')
    for name, text in SCHEDULES.items():
        (domain / "schedules" / f"{name}.jadpo").write_text(text)
    built = subprocess.run([sys.executable, str(ROOT / "scripts" / "build.py"), str(project)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    dry_run(project, project / "build" / "worker")
    with running_host(project) as host:
        yield host


def tickwork(host, *argv, now):
    env = {**os.environ, **QUIET, "PYTHONPATH": f"{ROOT / 'scripts'}{os.pathsep}{ROOT / 'src'}"}
    return subprocess.run([sys.executable, "-m", "tickwork_cli", *argv, "--local", "--persist-to", str(host.state),
                           "--now", str(now)], cwd=host.project, env=env, capture_output=True, text=True, timeout=180)


def exports(host):
    return host.d1("SELECT schedule, id, outcome, code, detail FROM tickwork_runs "
                   "WHERE schedule LIKE 'export_%' AND outcome <> 'skipped' ORDER BY schedule")


def test_a_schedule_runs_its_workflow_once_under_racing_ticks_settles_later_and_is_terminated(flows_host):
    host = flows_host
    assert host.tick(NOON)["ok"]
    with ThreadPoolExecutor(3) as pool:  # racing ticks: each instance is created once
        answers = list(pool.map(lambda _: host.tick(NOON + 3_600_000), range(3)))
    assert all(answer["ok"] for answer in answers), answers
    started = exports(host)
    assert [(r["schedule"], r["outcome"]) for r in started] == [
        ("export_fails", "running"), ("export_long", "running"), ("export_ok", "running")], started
    assert all(r["detail"].startswith("Workflow EXPORTS instance") for r in started)
    assert host.d1("SELECT COUNT(*) AS n FROM tickwork_workflow_runs") == [{"n": 3}]

    long = next(r["id"] for r in started if r["schedule"] == "export_long")
    done = tickwork(host, "terminate", long, "--who", "ada", now=NOON + 3_610_000)
    assert done.returncode == 0, done.stderr
    time.sleep(3)  # the Workflow's own sleep of a second, in Miniflare, on the wall clock
    assert host.tick(NOON + 3_660_000)["ok"]

    settled = {r["schedule"]: r for r in exports(host)}
    assert (settled["export_ok"]["outcome"], json.loads(settled["export_ok"]["detail"])) == (
        "succeeded", {"rows": 12, "at": NOON + 3_600_000, "attempt": 1})
    assert (settled["export_fails"]["outcome"], settled["export_fails"]["code"]) == ("failed", "workflow_errored")
    assert "the warehouse refused the upload" in settled["export_fails"]["detail"]
    assert (settled["export_long"]["outcome"], settled["export_long"]["code"], settled["export_long"]["detail"]) == (
        "failed", "terminated", "the Workflow instance was terminated by ada")
    assert host.d1("SELECT who, verb, schedule FROM tickwork_operator_log") == [
        {"who": "ada", "verb": "terminate", "schedule": "export_long"}]
    assert host.d1("SELECT COUNT(*) AS n FROM tickwork_workflow_runs") == [{"n": 0}]
