"""One list of the Worker's packages: pyproject.toml's `[project].dependencies`, which both
`make vendor` and `pywrangler sync` vendor, pinned exactly, complete, and repeated at the same
versions for the build and the tests on CPython (requirements/dev.txt)."""

import re
import tomllib
from importlib.metadata import PathDistribution

import pytest
from helpers import ROOT
from packaging.requirements import Requirement
from vendor import PINNED, worker_dependencies

# The Workers SDK (the `workers` module) runs only on Pyodide: CPython's build and tests do
# without it.
PYODIDE_ONLY = {"workers-runtime-sdk"}
# The markers of the Worker's Python: Pyodide 314.0.6's Python 3.14.2 or Pyodide 0.28.2's 3.13.2,
# as wrangler.toml selects (docs/how-to/run-locally.md, "Which Python runs").
PYODIDES = [
    {
        "python_version": version[:4], "python_full_version": version, "implementation_name": "cpython",
        "platform_python_implementation": "CPython", "sys_platform": "emscripten",
        "platform_system": "Emscripten", "platform_machine": "wasm32", "os_name": "posix", "extra": "",
    }
    for version in ("3.14.2", "3.13.2")
]


def _name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(lines) -> dict[str, str]:
    pins = {}
    for line in lines:
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[_name(name)] = version
    return pins


def test_the_worker_vendors_croniter_dateutil_tzdata_and_the_sdk_each_pinned_exactly():
    pins = _pins(worker_dependencies())

    assert set(pins) == {"croniter", "python-dateutil", "tzdata", "workers-runtime-sdk"}


@pytest.mark.parametrize("loose", ["croniter>=7", "croniter", "tzdata==2026.*", "six~=1.17"])
def test_a_dependency_not_pinned_exactly_stops_the_vendoring(tmp_path, loose):
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(f'[project]\nname = "x"\ndependencies = ["tzdata==2026.6", "{loose}"]\n')

    with pytest.raises(SystemExit, match=re.escape(loose)):
        worker_dependencies(pyproject)


def test_pywrangler_is_in_the_dev_dependency_group_pinned_exactly():
    """`uv run pywrangler deploy` (docs/how-to/deploy.md) installs the dev group."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dev = pyproject["dependency-groups"]["dev"]

    assert "workers-py" in {_name(entry.split("==")[0]) for entry in dev}
    assert all(PINNED.fullmatch(entry) for entry in dev)


def test_the_build_and_the_tests_run_the_worker_packages_at_the_vendored_versions():
    worker = _pins(worker_dependencies())
    dev = _pins((ROOT / "requirements" / "dev.txt").read_text().splitlines())

    on_cpython = {name: version for name, version in worker.items() if name not in PYODIDE_ONLY}
    assert {name: dev.get(name) for name in on_cpython} == on_cpython


def test_no_vendored_package_needs_a_package_the_list_lacks():
    """The packages are vendored without their dependencies, as pywrangler would resolve them."""
    worker = _pins(worker_dependencies())
    vendored = [PathDistribution(path) for path in (ROOT / "python_modules").glob("*.dist-info")]
    assert {_name(dist.metadata["Name"]): dist.version for dist in vendored} == worker

    missing = []
    for dist in vendored:
        for needed in map(Requirement, dist.requires or []):
            pinned = worker.get(_name(needed.name))
            for pyodide in PYODIDES:
                applies = needed.marker is None or needed.marker.evaluate(pyodide)
                if applies and (pinned is None or not needed.specifier.contains(pinned, prereleases=True)):
                    missing.append(f"{dist.metadata['Name']} needs {needed} on Python {pyodide['python_full_version']}")
    assert missing == []
