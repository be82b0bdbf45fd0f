"""The Worker's side on CPython: the manifest loaded without pydantic, and a cron tick through
the D1 adapter. The same entry runs on the real runtime in the local host's end-to-end tests."""

import shutil
import json
import sqlite3
import subprocess
import sys
from types import SimpleNamespace

from helpers import MIGRATIONS, ROOT, run
from tickwork_build.build import build

from tickwork import ActionError, Schedule
from tickwork.adapters.workers import D1Database, run_cron_tick
from tickwork.app import App
from tickwork.grid import Every
from tickwork.times import MINUTE, utc


class D1Shaped:
    """The D1 binding's shape as the SDK hands it to Python (`prepare().bind().all()` giving
    `{"results": [...]}`, `batch([...])`), over SQLite: it checks the adapter's calls, not D1."""

    def __init__(self, path):
        self.conn = sqlite3.connect(path, autocommit=True)
        self.conn.row_factory = sqlite3.Row

    def prepare(self, sql):
        return _Prepared(self, sql)

    def _run(self, sql, params):
        before = self.conn.total_changes
        rows = [dict(row) for row in self.conn.execute(sql, params).fetchall()]
        return {"results": rows, "meta": {"rows_written": self.conn.total_changes - before}}

    async def batch(self, statements):
        self.conn.execute("BEGIN")
        try:
            results = [self._run(s.text, s.params) for s in statements]
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")
        return results


class _Prepared:
    def __init__(self, binding, sql):
        self.binding, self.text, self.params = binding, sql, ()

    def bind(self, *params):
        self.params = params
        return self

    async def all(self):
        return {**self.binding._run(self.text, self.params), "success": True}


def example_project(tmp_path):
    root = tmp_path / "example"
    shutil.copytree(ROOT / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "migrations", root / "migrations")  # the app's tables, for its purge
    for name in ("pyproject.toml", "wrangler.toml"):
        shutil.copy(ROOT / name, root / name)
    build(root)
    return root


def built_app_on_cpython(tmp_path):
    """The example's built app, with a stand-in for the SDK's `workers` so its entry imports on CPython."""
    app_dir = example_project(tmp_path) / "build" / "app"
    (app_dir / "workers.py").write_text("class WorkerEntrypoint:\n    pass\n")
    return app_dir


def python_in(app_dir, code, check=False):
    return subprocess.run(
        [sys.executable, "-c", code], cwd=app_dir, env={"PYTHONPATH": str(app_dir)},
        capture_output=True, text=True, check=check,
    )


def test_the_worker_loads_its_manifest_without_importing_pydantic(tmp_path):
    app_dir = example_project(tmp_path) / "build" / "app"
    probe = (
        "import sys; import tickwork_manifest; "
        "from tickwork.app import App; from tickwork.adapters import workers; "
        "app = App.from_manifest(tickwork_manifest); "
        "print(sorted(s.name for s in app.schedules), 'pydantic' in sys.modules)"
    )
    out = python_in(app_dir, probe, check=True).stdout
    assert out.strip() == "['chore_census', 'chores_done.purge', 'enroll_customers', 'publish_digest', 'sweep', 'tally_chores', 'tidy_up', 'weekly_report'] False"


def test_the_entry_imports_only_what_a_cold_start_needs(tmp_path):
    app_dir = built_app_on_cpython(tmp_path)
    # All of tickwork a cold start needs: any other module of it (the tick, the outbox, a timing, a
    # store) is imported by the handler that first needs it. No dataclass: each compiles code as it is defined.
    needed = ["tickwork", "tickwork.adapters", "tickwork.adapters.workers", "tickwork.app", "tickwork.context",
              "tickwork.database", "tickwork.declare", "tickwork.events", "tickwork.json_values",
              "tickwork.records", "tickwork.times"]
    later = ("croniter", "dateutil", "zoneinfo", "pydantic", "dataclasses")
    probe = (
        f"import sys; import entry; later = {later!r}; "
        "print(sorted(m for m in sys.modules if m.startswith('tickwork.') or m == 'tickwork' "
        "or m in later or m.startswith(tuple(n + '.' for n in later))))"
    )
    out = python_in(app_dir, probe, check=True).stdout
    assert out.strip() == repr(needed)


def test_an_action_the_manifest_names_but_the_app_lacks_fails_the_entry_import(tmp_path):
    app_dir = built_app_on_cpython(tmp_path)
    manifest = app_dir / "tickwork_manifest.py"
    manifest.write_text(manifest.read_text().replace('"action": "tidy_up"', '"action": "tidy_up_gone"'))
    failed = python_in(app_dir, "import entry")
    assert failed.returncode == 1 and "has no attribute 'tidy_up_gone'" in failed.stderr


def test_a_manifest_entry_of_a_kind_this_tickwork_does_not_know_fails_the_entry_import(tmp_path):
    app_dir = built_app_on_cpython(tmp_path)
    manifest = app_dir / "tickwork_manifest.py"
    manifest.write_text(manifest.read_text().replace('{"kind": "pulse"', '{"kind": "hourly"'))
    failed = python_in(app_dir, "import entry")
    assert failed.returncode == 1
    assert "unknown kind of schedule in the manifest: 'hourly'; rebuild the app" in failed.stderr


def test_each_public_name_of_tickwork_is_found_in_its_module_at_first_use():
    import tickwork

    namespace: dict = {}
    exec("from tickwork import *", namespace)
    assert sorted(name for name in namespace if name != "__builtins__") == sorted(tickwork.__all__)
    assert not hasattr(tickwork, "no_such_name")


def test_a_cron_tick_runs_due_schedules_through_the_d1_binding(tmp_path, capsys):
    database = tmp_path / "d1.sqlite"
    setup = sqlite3.connect(database)
    for script in sorted(MIGRATIONS.glob("*.sql")):
        setup.executescript(script.read_text())
    setup.close()
    calls = []

    async def census():
        calls.append("census")

    app = App(store="DB", schedules=(Schedule("census", Every(MINUTE), census),))
    env = SimpleNamespace(DB=D1Shaped(database))

    async def two_ticks():
        for moment in (utc("2026-03-02 09:00"), utc("2026-03-02 09:01")):
            await run_cron_tick(app, env, SimpleNamespace(cron="* * * * *", scheduledTime=moment))

    run(two_ticks())
    assert calls == ["census"]
    assert "tickwork: census due 2026-03-02T09:01:00.000Z: succeeded in" in capsys.readouterr().out


def test_the_adapter_binds_none_as_null_and_reads_rows_as_dicts(tmp_path):
    db = D1Database(D1Shaped(tmp_path / "d1.sqlite"))
    rows = run(db.all("SELECT ?1 AS empty, ?2 AS number", (None, 2**53 - 1)))
    assert rows == [{"empty": None, "number": 2**53 - 1}]
    assert run(db.batch([("SELECT 1 AS one", ()), ("SELECT 2 AS two", ())])) == [[{"one": 1}], [{"two": 2}]]
    assert db.statements_run == 3


def test_the_worker_s_line_for_a_run_shows_the_control_characters_of_its_code_as_escapes(tmp_path, capsys):
    database = tmp_path / "d1.sqlite"
    setup = sqlite3.connect(database)
    for script in sorted(MIGRATIONS.glob("*.sql")):
        setup.executescript(script.read_text())
    setup.close()

    async def refused():
        raise ActionError("\x1b[2Jrefused\u202e", "the bank said no")

    app = App(store="DB", schedules=(Schedule("census", Every(MINUTE), refused),))
    env = SimpleNamespace(DB=D1Shaped(database))
    for moment in (utc("2026-03-02 09:00"), utc("2026-03-02 09:01")):
        run(run_cron_tick(app, env, SimpleNamespace(cron="* * * * *", scheduledTime=moment)))

    out = capsys.readouterr().out
    [line] = [json.loads(line) for line in out.splitlines()]  # the run's JSON line (tickwork.logs)
    assert line["message"].startswith("tickwork: census due 2026-03-02T09:01:00.000Z: failed (\\x1b[2Jrefused\\u202e)")
    assert line["code"] == "\\x1b[2Jrefused\\u202e"
    assert "\x1b" not in out and "\u202e" not in out
