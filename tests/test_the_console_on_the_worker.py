"""How the Worker's fetch reaches the console (issue 18): only requests under the app's prefix,
only where the app opts in, and the console's modules imported only when one arrives."""

import subprocess
import sys
from types import SimpleNamespace

from helpers import ROOT, run

from tickwork.adapters.workers import console, console_first, console_prefix_of
from tickwork.app import App

OPS = App("DB", (), console={"prefix": "/ops", "team": None, "aud": None, "token": "CONSOLE_TOKEN"})


def request(url: str):
    return SimpleNamespace(url=url, method="GET", headers={})


def test_only_paths_under_the_prefix_are_the_console_s():
    assert [console_prefix_of(OPS, path) for path in ("/ops", "/ops/", "/ops/runs", "/opsx", "/", "/x/ops")] == [
        True, True, True, False, False, False]


def test_an_app_that_does_not_opt_in_serves_no_console():
    assert not console_prefix_of(App("DB", ()), "/tickwork")
    assert run(console(App("DB", ()), SimpleNamespace(), request("https://w.example/ops"))) is None


def test_a_request_outside_the_prefix_goes_to_the_app_s_own_fetch():
    class Default:
        env = SimpleNamespace()

        @console_first(OPS)
        async def fetch(self, request):
            return "the app's own answer"

    assert run(Default().fetch(request("https://w.example/orders?ops=1"))) == "the app's own answer"


def test_the_console_is_imported_only_when_a_request_under_its_prefix_arrives():
    program = (
        "import sys, asyncio\n"
        "from types import SimpleNamespace as N\n"
        "from tickwork.adapters.workers import console\n"
        "from tickwork.app import App\n"
        "app = App('DB', (), console={'prefix': '/ops', 'team': None, 'aud': None, 'token': 'T'})\n"
        "asyncio.run(console(app, N(), N(url='https://w.example/orders', method='GET', headers={})))\n"
        "print(sorted(m for m in sys.modules if m.startswith('tickwork.console')))\n"
    )
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          env={"PYTHONPATH": str(ROOT / "src")}, check=True)
    assert done.stdout.strip() == "[]"
