"""The example app shows a newcomer a run soon: `make dev`'s timer ticks at the next whole minute,
and one of the app's schedules is first due within a minute of that tick, by the grid rule (a
schedule one `every:` after the first tick, a calendar at its next occurrence, a pulse at its
next share), so a run shows within two minutes of `make dev` starting."""

import importlib.util
import json
import shutil
import subprocess

import pytest
from helpers import ROOT
from tickwork_build.build import build

from tickwork.app import timing_of
from tickwork.times import MINUTE, utc

TIMER = (ROOT / "scripts" / "host" / "timer.mjs").as_uri()


@pytest.fixture(scope="module")
def timings(tmp_path_factory):
    """The example app's schedules, as its built manifest declares them."""
    root = tmp_path_factory.mktemp("example")
    shutil.copytree(ROOT / "src", root / "src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "migrations", root / "migrations")  # the app's tables, for its purge
    for name in ("pyproject.toml", "wrangler.toml"):
        shutil.copy(ROOT / name, root / name)
    spec = importlib.util.spec_from_file_location("example_manifest", build(root).manifest)
    manifest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(manifest)
    return {entry["name"]: timing_of(entry) for entry in manifest.SCHEDULES}


def _first_tick(started):
    """When the timer of `make dev` (no queues bound) first ticks after starting at `started`."""
    script = f"""
        import {{ MINUTE, nextTickAt }} from {json.dumps(TIMER)};
        process.stdout.write(String(nextTickAt({started}, MINUTE)));
    """
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout)


@pytest.mark.parametrize(
    "started",
    ["2026-01-05 12:00:00", "2026-01-05 12:00:00.001", "2026-01-05 12:59:59.999", "2026-03-29 00:59:30",
     "2026-11-30 05:33:17.250"],
)
def test_a_run_of_the_example_app_is_due_within_two_minutes_of_make_dev_starting(timings, started):
    first_tick = _first_tick(utc(started))

    earliest = min(timing.first_due(first_tick) for timing in timings.values())

    assert earliest - utc(started) <= 2 * MINUTE
