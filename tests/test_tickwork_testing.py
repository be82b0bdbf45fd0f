"""tickwork.testing, what an app's own tests use to test its schedules without a Worker: a store
that binds and refuses as D1 does, and ticks at the UTC times a test names."""

import asyncio
import shutil
import sqlite3
import subprocess
import sys

import pytest
from faults import Faulty, each
from helpers import MIGRATIONS, ROOT, Calls, runs
from tickwork_build.build import build

from tickwork import Schedule, env
from tickwork.adapters.sqlite import D1Refused
from tickwork.app import App
from tickwork.grid import Every
from tickwork.testing import built_app, frozen, local_store, tick_at, ticks_at
from tickwork.times import HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")


def census(action=None) -> Schedule:
    return Schedule("census", Every(15 * MINUTE), action or Calls())


def test_the_local_store_is_migrated_and_refuses_what_d1_refuses():
    store = local_store(MIGRATIONS)
    assert asyncio.run(store.all("SELECT COUNT(*) AS n FROM tickwork_app")) == [{"n": 1}]
    with pytest.raises(D1Refused, match="D1_TYPE_ERROR"):
        asyncio.run(store.all("SELECT ?1 AS n", (2**53,)))
    assert asyncio.run(store.all("SELECT ?1 || 'x' AS bound", (5,))) == [{"bound": "5.0x"}]  # an int binds as REAL


def _schema(store) -> list:
    return asyncio.run(store.all("SELECT type, name, sql FROM sqlite_schema ORDER BY name"))


def test_each_store_is_a_copy_of_the_migrations_applied_once_with_the_scripts_own_schema(tmp_path):
    """The tests open thousands of stores: each after the first is copied from the first's tables,
    running no script, and holds what the scripts make, rows and all, and nothing of another's."""
    from tickwork.adapters.sqlite import SQLiteDatabase

    first = local_store(MIGRATIONS)
    asyncio.run(first.all("UPDATE tickwork_app SET last_tick = 7"))
    scripted = SQLiteDatabase()
    for script in sorted(MIGRATIONS.glob("*.sql")):
        scripted._conn.executescript(script.read_text())
    copied, traced = SQLiteDatabase(), []
    copied._conn.set_trace_callback(traced.append)
    copied.apply_migrations(MIGRATIONS)
    assert [sql for sql in traced if "CREATE" in sql.upper()] == []
    in_a_file = local_store(MIGRATIONS, tmp_path / "d1.sqlite")
    for store in (copied, in_a_file):
        assert _schema(store) == _schema(scripted)
        assert asyncio.run(store.all("SELECT * FROM tickwork_app")) == asyncio.run(scripted.all("SELECT * FROM tickwork_app"))


def test_a_database_with_tables_has_the_migrations_run_on_it_not_copied_over_it():
    from tickwork.adapters.sqlite import SQLiteDatabase

    local_store(MIGRATIONS)
    store = SQLiteDatabase()
    store._conn.execute("CREATE TABLE tickwork_app (id INTEGER PRIMARY KEY)")
    with pytest.raises(sqlite3.OperationalError, match="already exists"):
        store.apply_migrations(MIGRATIONS)


def test_a_local_store_with_no_migrations_says_where_it_looked(tmp_path):
    with pytest.raises(FileNotFoundError, match=f"no migrations in {tmp_path}"):
        local_store(tmp_path)


def test_a_tick_at_a_utc_time_is_the_tick_at_its_epoch_ms():
    action = Calls()
    by_text, by_ms = local_store(MIGRATIONS), local_store(MIGRATIONS)
    asyncio.run(ticks_at([census(action)], ["2026-03-02T09:00Z", "2026-03-02T09:15Z"], by_text))
    asyncio.run(ticks_at([census(action)], [NINE, NINE + 15 * MINUTE], by_ms))
    assert action.at == [NINE + 15 * MINUTE, NINE + 15 * MINUTE]


def test_a_schedule_first_runs_one_interval_after_the_first_tick_that_sees_it():
    store = local_store(MIGRATIONS)
    first, early, due = asyncio.run(ticks_at([census()], [NINE, NINE + 14 * MINUTE, NINE + 15 * MINUTE], store))
    assert (first.runs, early.runs) == ([], [])
    assert [(run.schedule, run.due_at, run.outcome) for run in due.runs] == [
        ("census", NINE + 15 * MINUTE, "succeeded")]


def test_a_time_that_is_no_time_is_refused():
    with pytest.raises(ValueError, match="'Monday nine' is no time"):
        asyncio.run(tick_at([census()], "Monday nine", local_store(MIGRATIONS)))


def test_an_app_is_ticked_with_its_declared_schedules_and_its_retention():
    action = Calls()
    app = App("DB", (census(action),), retention=HOUR)
    store = local_store(MIGRATIONS)
    asyncio.run(ticks_at(app, [NINE, NINE + 15 * MINUTE], store))
    assert action.at == [NINE + 15 * MINUTE]
    assert app.declared.names == ["census"]


def test_the_frozen_clock_never_moves():
    assert {frozen() for _ in range(3)} == {0.0}


def test_an_end_d1_keeps_refusing_is_given_up_when_its_lease_lapses_without_the_test_waiting():
    # The pauses between attempts pass on the tick's clock at once: the tick gives up as the
    # Worker's would when the leases lapse, instead of pausing for real with a clock that stands still.
    store = local_store(MIGRATIONS)
    asyncio.run(tick_at([census()], NINE, store))
    refusing = Faulty(store, each("ends"))
    asyncio.run(asyncio.wait_for(tick_at([census()], NINE + 15 * MINUTE, refusing), timeout=5))
    assert [run["outcome"] for run in runs(store)] == ["running"]  # lost: it ends lease_expired when the lease lapses


def test_built_app_without_a_build_says_to_build_first(tmp_path):
    with pytest.raises(FileNotFoundError, match="run `tickwork build` first"):
        built_app(tmp_path / "build" / "app")


def example_project(tmp_path):
    root = tmp_path / "example"
    shutil.copytree(ROOT / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "migrations", root / "migrations")
    for name in ("pyproject.toml", "wrangler.toml"):
        shutil.copy(ROOT / name, root / name)
    build(root)
    return root


class Waits:
    """A `ctx` whose waitUntil keeps what it is handed."""

    def __init__(self):
        self.handed = []

    def waitUntil(self, task):
        self.handed.append(task)


def test_an_app_tests_its_own_schedules_as_built(tmp_path, monkeypatch):
    # What an app's own test reads like: its built app, a local store of its migrations, ticks at
    # the times the rule names, and the Worker's vars given as a test gives them to an action.
    project = example_project(tmp_path)
    monkeypatch.chdir(project)
    app = built_app()
    store = local_store()

    async def the_first_hour():
        with env.given(REPORT_TO="sales@example.com", ctx=Waits()):
            return await ticks_at(app, ["2026-03-02T09:00Z", "2026-03-02T10:00Z"], store)

    first, hour = asyncio.run(the_first_hour())
    ran = {run.schedule: run.outcome for run in hour.runs}
    assert first.runs == []
    assert ran["tidy_up"] == "succeeded" and ran["publish_digest"] == "succeeded"
    assert [run.due_at for run in hour.runs if run.schedule == "tidy_up"] == [NINE + HOUR]


def the_example_of(page: str) -> str:
    """The first Python block of a page of the documentation, as a reader copies it."""
    return (ROOT / "docs" / page).read_text().split("```python\n", 1)[1].split("```", 1)[0]


def test_the_documented_example_runs_as_written(tmp_path, monkeypatch):
    """docs/how-to/test-your-schedules.md's example, run as the app's own test would run it."""
    monkeypatch.chdir(example_project(tmp_path))
    example: dict = {}
    exec(compile(the_example_of("how-to/test-your-schedules.md"), "test-your-schedules.md", "exec"), example)
    example["test_tidy_up_runs_an_hour_after_the_first_tick"]()


def test_tickwork_testing_needs_no_pytest():
    probe = (
        "import sys; sys.modules['pytest'] = None\n"
        "import asyncio\n"
        "from tickwork import Schedule\n"
        "from tickwork.grid import Every\n"
        "from tickwork.testing import local_store, ticks_at\n"
        "async def census(): pass\n"
        f"store = local_store({str(MIGRATIONS)!r})\n"
        "reports = asyncio.run(ticks_at([Schedule('census', Every(60_000), census)], "
        "['2026-03-02T09:00Z', '2026-03-02T09:01Z'], store))\n"
        "print([str(run.outcome) for run in reports[-1].runs])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "['succeeded']"
