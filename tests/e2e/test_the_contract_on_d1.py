"""The store contract (tests/contract/scenarios.py) on D1: the same scenario functions the unit
tests run on SQLite, run inside the local Workers host on Miniflare's D1 through the Worker's own
`D1Database`, each in a request of its own (one invocation) on freshly migrated tables; and those
that only read, through `wrangler d1 execute --local` (WranglerD1), as the operator's command
reads the local D1.

The host runs a copy of the e2e project with the scenarios as a module of the Worker and a route
that runs one (`POST /e2e/contract?scenario=NAME&now=MS`), answering `{"held": true}` or the
traceback of what failed."""

import asyncio
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, dry_run, make_project, running_host
from contract.scenarios import READS, SCENARIOS

from tickwork.times import utc
from tickwork_cli.wrangler_d1 import WranglerD1

NINE = utc("2026-01-05 09:00")
SCENARIOS_FILE = ROOT / "tests" / "contract" / "scenarios.py"

CONTRACT_ENTRY = '''

# --- Added by tests/e2e/test_the_contract_on_d1.py: one scenario of the store contract a request. ---
class Default(Default):
    async def fetch(self, request):
        from urllib.parse import parse_qs, urlparse

        url = urlparse(request.url)
        if request.method != "POST" or url.path != "/e2e/contract":
            return await super().fetch(request)
        import traceback

        from contract_scenarios import BY_NAME
        from tickwork.adapters.workers import D1Database
        from workers import Response

        query = {key: values[-1] for key, values in parse_qs(url.query).items()}
        try:
            await BY_NAME[query["scenario"]](D1Database(self.env.DB), int(query["now"]))
        except BaseException:
            return Response.json({"failed": traceback.format_exc()})
        return Response.json({"held": True})
'''


@pytest.fixture(scope="module")
def contract_host(tmp_path_factory):
    project = make_project(tmp_path_factory.mktemp("contract"))
    shutil.copy(SCENARIOS_FILE, project / "src" / "contract_scenarios.py")
    with (project / "src" / "entry.py").open("a") as entry:
        entry.write(CONTRACT_ENTRY)
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build.py"), str(project)],
                   check=True, capture_output=True, text=True)
    dry_run(project, project / "build" / "worker")
    with running_host(project) as running:
        yield running


def name(scenario) -> str:
    return scenario.__name__


@pytest.mark.parametrize("scenario", SCENARIOS, ids=name)
def test_d1_on_the_workers_runtime_keeps_the_rule(contract_host, scenario):
    contract_host.reset()

    answer = contract_host.fetch(f"/e2e/contract?scenario={name(scenario)}&now={NINE}", "POST", b"")

    assert answer.status == 200, answer
    assert answer.json() == {"held": True}, answer.json().get("failed", answer.text)


@pytest.mark.parametrize("scenario", READS, ids=name)
def test_the_local_d1_through_wrangler_keeps_the_read_rule(host, scenario):
    asyncio.run(scenario(WranglerD1(host.project, "DB", persist_to=host.state), NINE))
