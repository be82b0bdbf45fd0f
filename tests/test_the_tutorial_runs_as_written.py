"""The tutorial's code, copied from its pages as a newcomer copies it, builds and runs: the first
schedule's first run comes one interval after the tick that first sees it, and the billing job
builds with its alerts (docs/tutorial/)."""

import asyncio
import shutil
import sys

import pytest

from helpers import MIGRATIONS, ROOT
from tickwork_build.build import build

from tickwork.testing import built_app, local_store, ticks_at

TUTORIAL = ROOT / "docs" / "tutorial"


@pytest.fixture(autouse=True)
def the_worker_s_own_app(monkeypatch):
    """Each Worker's `app` package is its own: none imported before (the example app's) is kept."""
    for name in [name for name in sys.modules if name == "app" or name.startswith("app.")]:
        monkeypatch.delitem(sys.modules, name)
    yield
    for name in [name for name in sys.modules if name == "app" or name.startswith("app.")]:
        del sys.modules[name]


def block(page: str, first_line: str) -> str:
    """The code block of a page that opens with `first_line` (its file's name), as copied."""
    text = (TUTORIAL / page).read_text()
    return text.split(first_line + "\n", 1)[1].split("```", 1)[0]


def worker(tmp_path, files: dict[str, str], wrangler_more: str = ""):
    """A Worker after `tickwork init`, built: its app package, tickwork's migrations, the files (its
    pyproject.toml among them, if a page gives one) and more of wrangler.toml."""
    root = tmp_path / "my-worker"
    (root / "src" / "app" / "domains").mkdir(parents=True)
    for package in ("src/app", "src/app/domains"):
        (root / package / "__init__.py").write_text("")
    shutil.copytree(MIGRATIONS, root / "migrations", ignore=shutil.ignore_patterns("01*"))
    (root / "pyproject.toml").write_text('[project]\nname = "my-worker"\nversion = "0.1.0"\n\n'
                                         '[tool.tickwork]\nsource = "src"\napp = "src/app"\n')
    (root / "wrangler.toml").write_text(
        'name = "my-worker"\nmain = "build/app/entry.py"\ncompatibility_date = "2026-04-21"\n'
        'compatibility_flags = ["python_workers"]\n\n[[d1_databases]]\nbinding = "DB"\n'
        'database_name = "my-worker"\ndatabase_id = "00000000-0000-0000-0000-000000000001"\n\n'
        '[triggers]\ncrons = ["* * * * *"]\n' + wrangler_more)
    (root / "src" / "entry.py").write_text("")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root, build(root)


def test_the_first_schedule_runs_a_minute_after_the_first_tick(tmp_path, monkeypatch, capsys):
    root, _ = worker(tmp_path, {
        "src/app/domains/hello/__init__.py": block("first-schedule.md", "# src/app/domains/hello/__init__.py"),
        "src/app/domains/hello/schedules/hello.jadpo":
            block("first-schedule.md", "// src/app/domains/hello/schedules/hello.jadpo"),
    })
    monkeypatch.chdir(root)
    monkeypatch.syspath_prepend("build/app")
    first, then = asyncio.run(ticks_at(built_app(), ["2026-12-02T01:57Z", "2026-12-02T01:58Z"], local_store()))
    assert first.runs == []
    assert [(run.schedule, run.outcome) for run in then.runs] == [("hello", "succeeded")]
    assert "hello at 2026-12-02 01:58:00+00:00" in capsys.readouterr().out


def test_the_billing_job_with_its_alerts_builds(tmp_path):
    # Its run on the host, failing, retried, alerting and backfilled, is in the page as it ran; the
    # action reads the Worker's own D1 binding, which no test here stands in for.
    _, built = worker(tmp_path, {
        "pyproject.toml": '[project]\nname = "my-worker"\nversion = "0.1.0"\n\n'
                          + block("billing-job.md", "# pyproject.toml"),
        "migrations/0100_billing.sql": block("billing-job.md", "-- migrations/0100_billing.sql"),
        "src/app/domains/billing/__init__.py": block("billing-job.md", "# src/app/domains/billing/__init__.py"),
        "src/app/domains/billing/schedules/monthly_invoices.jadpo":
            block("billing-job.md", "// src/app/domains/billing/schedules/monthly_invoices.jadpo"),
        "src/app/domains/billing/alerts.py": block("billing-job.md", "# src/app/domains/billing/alerts.py"),
    }, wrangler_more="\n" + block("billing-job.md", "# wrangler.toml"))
    manifest = built.manifest.read_text()
    assert "ALERTS = 'ALERTS'" in manifest
    assert [spec.name for spec in built.schedules] == ["monthly_invoices"]
    assert "'action': 'tell_the_team'" in manifest
