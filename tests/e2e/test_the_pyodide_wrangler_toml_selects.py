"""The host runs the Pyodide the Worker's wrangler.toml selects, as the Workers runtime does:
`python_workers_314` (on from compatibility_date 2026-09-08) gives Pyodide 314.0.6 with Python
3.14, `python_workers_20250116` (from 2025-09-29) Pyodide 0.28.2 with Python 3.13. It refuses
what it does not run. And tickwork ticks on both: the current Pyodide and the one before.

The selection rules are runtimes.mjs's, run in Node; the ticks are the example's, on the host.
"""

import json
import re
from importlib.metadata import PathDistribution
from pathlib import Path

import pytest
from conftest import make_project, running_host
from helpers import ROOT, in_node
from packaging.specifiers import SpecifierSet

from tickwork.times import utc

RUNTIMES = ROOT / "scripts" / "host" / "runtimes.mjs"
SUPPORTED = [
    # (compatibility_date, Pyodide, the stdlib's folder in it)
    ("2026-12-01", "314.0.6", "python314.zip"),
    ("2026-04-21", "0.28.2", "python313.zip"),
]
# The Pythons of those Pyodides.
PYTHONS = ["3.14.2", "3.13.2"]


def selected(date, flags=("python_workers",)):
    """`{"pyodide": version}` or `{"refused": message}`: what the host runs for a wrangler.toml
    with `compatibility_date = date` and `compatibility_flags = flags`."""
    config = {"compatibility_date": date, "compatibility_flags": list(flags)}
    answer = in_node(RUNTIMES, "compatFlags, pyodideFor", f"pyodideFor(compatFlags({json.dumps(config)})).pyodide")
    return {"pyodide": answer["value"]} if "value" in answer else answer


def test_a_worker_made_today_runs_on_pyodide_314_with_python_3_14():
    assert selected("2026-12-01") == {"pyodide": "314.0.6"}
    assert selected("2026-09-08") == {"pyodide": "314.0.6"}


def test_a_compatibility_date_before_2026_09_08_runs_on_pyodide_0_28_with_python_3_13():
    assert selected("2026-09-07") == {"pyodide": "0.28.2"}
    assert selected("2026-04-21") == {"pyodide": "0.28.2"}


def test_the_python_workers_314_flag_selects_pyodide_314_before_its_date():
    assert selected("2026-04-21", ["python_workers", "python_workers_314"]) == {"pyodide": "314.0.6"}


def test_no_python_workers_314_keeps_a_current_date_on_pyodide_0_28():
    assert selected("2026-12-01", ["python_workers", "no_python_workers_314"]) == {"pyodide": "0.28.2"}


@pytest.mark.parametrize(
    ("date", "flags", "pyodide"),
    [
        ("2026-07-01", ["python_workers", "python_workers_20260610"],
         "Pyodide 314.0.4 (Python 3.14, flag python_workers_20260610)"),
        ("2025-06-01", ["python_workers"], "Pyodide 0.26.0a2 (Python 3.12, flag python_workers)"),
    ],
)
def test_a_pyodide_the_host_does_not_run_is_refused_saying_how_to_select_one_it_runs(date, flags, pyodide):
    refused = selected(date, flags)["refused"]

    assert f"select {pyodide}, which the tickwork host does not run" in refused
    assert ("Pyodide 314.0.6 (Python 3.14): a compatibility_date from 2026-09-08, "
            'or compatibility_flags ["python_workers", "python_workers_314"]') in refused
    assert "Pyodide 0.28.2 (Python 3.13): a compatibility_date from 2025-09-29 and before 2026-09-08" in refused


def test_a_worker_without_the_python_workers_flag_is_refused():
    refused = selected("2026-12-01", [])["refused"]

    assert 'compatibility_flags lacks "python_workers"' in refused


def test_each_pyodide_the_host_runs_is_pinned_in_package_json_and_installed():
    package = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())
    aliases = {"pyodide-314": "314.0.6", "pyodide-0.28": "0.28.2"}

    for alias, version in aliases.items():
        assert package["devDependencies"][alias] == f"npm:pyodide@{version}"
        locked = lock["packages"][f"node_modules/{alias}"]
        assert (locked["name"], locked["version"]) == ("pyodide", version)
        assert locked["integrity"].startswith("sha512-")
        installed = json.loads((ROOT / "node_modules" / alias / "package.json").read_text())
        assert installed["version"] == version


def test_every_vendored_package_is_pure_python_and_admits_the_python_of_each_pyodide():
    """Vendored as they are, for whichever Pyodide wrangler.toml selects."""
    misfits = []
    for path in sorted((ROOT / "python_modules").glob("*.dist-info")):
        dist = PathDistribution(path)
        name = dist.metadata["Name"]
        wheel = dist.read_text("WHEEL").splitlines()
        tags = {line.split(": ", 1)[1] for line in wheel if line.startswith("Tag: ")}
        admits = SpecifierSet(dist.metadata["Requires-Python"] or "")
        if not tags or not all(tag.endswith("-none-any") for tag in tags):
            misfits.append(f"{name} is not pure Python: {sorted(tags)}")
        misfits += [f"{name} refuses Python {python}" for python in PYTHONS if python not in admits]
    assert misfits == []


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return make_project(tmp_path_factory.mktemp("runtimes"))


@pytest.mark.parametrize(("date", "pyodide", "stdlib"), SUPPORTED, ids=[row[1] for row in SUPPORTED])
def test_the_example_ticks_on_each_pyodide_the_host_runs(project, date, pyodide, stdlib):
    config = project / f"wrangler.{pyodide}.toml"
    toml = (project / "wrangler.toml").read_text()
    config.write_text(re.sub(r'(?m)^compatibility_date = ".*"$', f'compatibility_date = "{date}"', toml))

    with running_host(project, config, project / f"state-{pyodide}") as host:
        host.tick(utc("2026-01-05 12:00"))
        tick = host.tick(utc("2026-01-05 12:15"))
        loaded = dict(host.modules()["loaded"])

    assert f"on Pyodide {pyodide}," in "".join(host.output)
    assert Path(loaded["json"]).parts[:3] == ("/", "lib", stdlib)
    assert tick["ok"], tick
    census = [run for run in tick["runs"] if run["schedule"] == "chore_census"]
    assert [(run["due"], run["outcome"]) for run in census] == [("2026-01-05T12:15:00Z", "succeeded")]
