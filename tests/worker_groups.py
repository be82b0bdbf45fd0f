"""Which tests one pytest-xdist worker runs in a row: tests/conftest.py hands this rule to xdist.

`make test` runs the tests on two workers (-n 2 --dist loadgroup), each module whole on one
worker, so that its module-scoped fixtures (an e2e module's own host or `tickwork dev`) are made
once; each worker starts the session's `host` (tests/e2e/conftest.py) once, for every e2e module
it runs. The tests that build, bundle or run make in this checkout share its build/: they run
one at a time, on a single worker. A new test that does so joins IN_THE_CHECKOUT
(tests/test_the_suite_runs_on_workers.py finds those that do not). xdist_group marks would not
do: on pytest 9 an item is named by its `_id`, and xdist's group suffix on `_nodeid` is lost.
"""

IN_THE_CHECKOUT = (
    "tests/test_bundle.py::",  # wrangler's [build] command, make build
    "tests/test_make_sets_up_the_browser_test.py::",  # make -n writes build/.bundle-sources
    "tests/e2e/test_make_dev.py::",
    "tests/e2e/test_the_console_in_a_browser.py::",  # tickwork dev, here, builds and bundles
    "tests/e2e/test_the_console_filters_in_a_browser.py::",
    "tests/e2e/test_the_console_pictures_in_a_browser.py::",
    "tests/e2e/test_the_run_page_in_a_browser.py::",
    "tests/e2e/test_ticks_by_hand.py::test_make_tick_",
    # its project links the checkout's node_modules: `tickwork tick` copies the host afresh into
    # node_modules/.tickwork-host, which the checkout's `tickwork dev` runs from
    "tests/e2e/test_a_worker_configured_by_wrangler_jsonc.py::",
)


def worker_group(nodeid: str) -> str:
    """The tests one worker runs in a row: those in the checkout, or one module's."""
    return "checkout" if nodeid.startswith(IN_THE_CHECKOUT) else nodeid.split("::", 1)[0]


