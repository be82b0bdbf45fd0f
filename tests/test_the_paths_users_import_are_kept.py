"""The import paths the documentation, the host's bridge and apps write stay where they are through any move
of the runtime's modules (architecture.md §3.1); and a cold start loads none of the tick, the stores,
croniter or dataclasses, whatever their modules come to be called."""
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import tickwork

PUBLIC = [
    ("tickwork.adapters.workers", ["run_cron_tick", "run_queue", "emitting", "health_of", "items",
                                   "console_first", "D1Database", "TICK_STATEMENTS"]),
    ("tickwork.adapters.sqlite", ["SQLiteDatabase"]),
    ("tickwork.app", ["App"]),
    ("tickwork.invocation", []),
    ("tickwork.tick", ["tick"]),
    ("tickwork.database", ["Database", "Params", "Row", "Statement"]),
    ("tickwork.times", ["MINUTE", "HOUR", "DAY", "SECOND", "NEVER", "utc", "instant"]),
    ("tickwork.model", ["Schedule", "ActionError", "ScheduleError"]),
]
NAMES_OF_TICKWORK = ["ActionError", "EventError", "Schedule", "ScheduleError", "calendar", "call", "clock",
                     "consumer", "env", "event", "handled", "items", "on_success", "pulse", "purge", "schedule",
                     "wait_until"]


@pytest.mark.parametrize("module, names", PUBLIC, ids=[m for m, _ in PUBLIC])
def test_each_public_path_imports_with_its_names(module, names):
    imported = importlib.import_module(module)
    assert [n for n in names if not hasattr(imported, n)] == []


def test_tickwork_exports_its_seventeen_names():
    assert sorted(tickwork.__all__) == NAMES_OF_TICKWORK
    assert all(getattr(tickwork, n) is not None for n in NAMES_OF_TICKWORK)


def test_a_cold_start_loads_no_tick_no_store_no_croniter_and_no_dataclasses():
    # What `entry.py` imports at a cold start, as the Worker's entry does (tests/test_worker_adapter.py
    # pins the exact list); here the property behind that list, which a renamed module cannot dodge.
    probe = (
        "import sys, tickwork, tickwork.app, tickwork.adapters.workers, tickwork.declare, tickwork.context; "
        "print(sorted(m for m in sys.modules if m.startswith(('tickwork.tick', 'tickwork.store', "
        "'tickwork.schedule_store', 'tickwork.kinds', 'croniter', 'dataclasses', 'pydantic'))))"
    )
    src = Path(__file__).resolve().parents[1] / "src"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(src)}).stdout
    assert out.strip() == "[]"
