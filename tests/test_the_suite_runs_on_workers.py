"""`make test` runs the suite on pytest-xdist's workers (tests/conftest.py): a module whole on one
worker, so that its module-scoped hosts start once, and the tests that build, bundle or run make
in this checkout one at a time on a single worker, since they share its build/."""

import re

import pytest

from worker_groups import IN_THE_CHECKOUT, worker_group
from helpers import ROOT

TESTS = ROOT / "tests"


def test_make_test_runs_the_tests_on_workers_grouped_by_the_suites_own_rule():
    makefile = (ROOT / "Makefile").read_text()
    assert re.search(r"^\t\$\(PY\) -m pytest -n \$\(TEST_WORKERS\) --dist loadgroup$", makefile, re.M)
    assert re.search(r"^TEST_WORKERS \?= 2$", makefile, re.M)
    assert re.search(r"^pytest-xdist==\S+$", (ROOT / "requirements" / "dev.txt").read_text(), re.M)


def test_the_tests_in_the_checkout_share_one_group_and_a_module_keeps_to_one_worker():
    assert {worker_group(prefix + "test_x") for prefix in IN_THE_CHECKOUT} == {"checkout"}
    assert worker_group("tests/e2e/test_ticks_by_hand.py::test_make_tick_hands_the_host_a_time") == "checkout"
    assert worker_group("tests/e2e/test_ticks_by_hand.py::test_now_is_the_minute_of_the_hosts_clock") == \
        worker_group("tests/e2e/test_ticks_by_hand.py::test_an_epoch_in_seconds_is_refused[x]") == \
        "tests/e2e/test_ticks_by_hand.py"
    assert worker_group("tests/test_jitter.py::test_a[1]") == worker_group("tests/test_jitter.py::test_b")


def _builds_in_the_checkout(source: str) -> bool:
    """Runs make, wrangler or the tickwork command in this checkout, or in a project linking the
    checkout's node_modules (where the command copies the host afresh), or uses a fixture that does."""
    runs_here = "cwd=ROOT" in source and re.search(r'\[\s*"(make|npx)"|"bin" / "tickwork"\)', source)
    links_its_node_modules = 'symlink_to(ROOT / "node_' + 'modules")' in source and '"bin" / "tick' + 'work"' in source
    return bool(runs_here) or links_its_node_modules or "from test_the_console_in_a_browser" + " import" in source


def test_each_module_that_builds_in_the_checkout_is_in_the_checkouts_group():
    modules = [path for path in sorted(TESTS.rglob("test_*.py")) if _builds_in_the_checkout(path.read_text())]
    assert len(modules) >= 5
    grouped = [path for path in modules if path.name != "test_ticks_by_hand.py"]  # one test of it, by name
    assert [path.relative_to(ROOT).as_posix() for path in grouped
            if f"{path.relative_to(ROOT).as_posix()}::" not in IN_THE_CHECKOUT] == []


class _LoadgroupConfig:
    """What xdist's scheduler reads of a `-n 2 --dist loadgroup` run's configuration."""

    def getvalue(self, name: str):
        return {"dist": "loadgroup", "tx": ["2*popen"]}[name]


def test_xdist_is_handed_the_suites_rule_for_loadgroup(pytestconfig):
    pytest.importorskip("xdist")
    scheduler = pytestconfig.pluginmanager.hook.pytest_xdist_make_scheduler(config=_LoadgroupConfig(), log=None)
    for nodeid in ("tests/e2e/test_make_dev.py::test_a", "tests/test_jitter.py::test_a[1]"):
        assert scheduler._split_scope(nodeid) == worker_group(nodeid)
