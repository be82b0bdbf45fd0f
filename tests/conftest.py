import faulthandler

import pytest
from _pytest.faulthandler import fault_handler_stderr_fd_key, get_exit_on_timeout_config_value, get_timeout_config_value
from harness import app, db  # noqa: F401 (the fixtures every test may ask for)
from worker_groups import worker_group

# The contract's scenarios assert in plain functions (they run in the Workers host too): rewritten
# as a test's asserts are, so a failure shows the values.
pytest.register_assert_rewrite("contract.scenarios")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "faulthandler_timeout(seconds): this test's own faulthandler timeout in place of "
                   "pyproject's, for a test whose set-up or run outlasts that on a loaded machine")


# `make test` runs the tests on pytest-xdist's workers, grouped as worker_groups.py says.
try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pytest-xdist is `make test`'s, not needed to run a file
    LoadScopeScheduling = None

if LoadScopeScheduling is not None:
    class _ByWorkerGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return worker_group(nodeid)

    def pytest_xdist_make_scheduler(config, log):
        return _ByWorkerGroup(config, log) if config.getvalue("dist") == "loadgroup" else None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item):
    """pytest arms `faulthandler_timeout` in its own wrapper around this hook (it has no marker for
    it): a test marked with its own is armed again here, inside that wrapper, which disarms it after."""
    marker = item.get_closest_marker("faulthandler_timeout")
    armed = fault_handler_stderr_fd_key in item.config.stash  # not with -p no:faulthandler
    if marker is not None and armed and get_timeout_config_value(item.config):
        faulthandler.dump_traceback_later(marker.args[0], file=item.config.stash[fault_handler_stderr_fd_key],
                                          exit=get_exit_on_timeout_config_value(item.config))
