"""pyproject's `faulthandler_timeout` dumps every thread of a test that runs past it, which reads
as a hang among the dots: a test whose set-up outlasts it on a loaded machine carries its own
(`@pytest.mark.faulthandler_timeout(seconds)`; every e2e test has tests/e2e/conftest.py's)."""

import faulthandler
import subprocess
import sys
from pathlib import Path

import pytest

CONFTEST = Path(__file__).parent / "conftest.py"


def _arming(request, monkeypatch) -> list[float]:
    """The timeouts the suite's conftest arms for this test, as pytest's wrapper has it call it."""
    [conftest] = [p for p in request.config.pluginmanager.get_plugins() if getattr(p, "__file__", None) == str(CONFTEST)]
    armed = []
    monkeypatch.setattr(faulthandler, "dump_traceback_later", lambda timeout, **how: armed.append(timeout))
    conftest.pytest_runtest_protocol(request.node)
    return armed


@pytest.mark.faulthandler_timeout(900)
def test_a_test_marked_with_its_own_faulthandler_timeout_is_armed_with_it(request, monkeypatch):
    assert _arming(request, monkeypatch) == [900]


def test_a_test_with_none_of_its_own_keeps_pyprojects(request, monkeypatch):
    assert _arming(request, monkeypatch) == []
    assert float(request.config.getini("faulthandler_timeout")) == 120


@pytest.mark.faulthandler_timeout(900)
def test_a_marked_test_that_does_nothing():
    """The subject of the next test."""


def test_without_pytests_faulthandler_plugin_a_marked_test_runs_as_any_other():
    """`pytest -p no:faulthandler` (no timeout at all) ran no e2e test: each errored in the marker's hook."""
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:faulthandler", "-p", "no:cacheprovider", "-q",
                           f"{__file__}::test_a_marked_test_that_does_nothing"],
                          cwd=CONFTEST.parent.parent, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
