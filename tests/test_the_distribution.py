"""The one distribution, `tickwork` (pyproject.toml): built by a backend pinned exactly, its
command's build packages an extra at the versions the build and the tests run."""

import tomllib

from helpers import ROOT
from vendor import PINNED

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _pins(lines) -> dict[str, str]:
    entries = (line.split("#")[0].strip() for line in lines)
    return dict(entry.lower().replace("_", "-").split("==") for entry in entries if entry)


def test_the_build_backend_is_pinned_exactly():
    requires = PYPROJECT["build-system"]["requires"]

    assert requires and all(PINNED.fullmatch(entry) for entry in requires)


def test_the_commands_extra_pins_the_builds_packages_at_the_versions_the_tests_run():
    extra = _pins(PYPROJECT["project"]["optional-dependencies"]["cli"])
    dev = _pins((ROOT / "requirements" / "dev.txt").read_text().splitlines())

    assert "pydantic" in extra
    assert {name: dev.get(name) for name in extra} == extra


def test_the_tickwork_command_is_the_wheels_console_script():
    assert PYPROJECT["project"]["scripts"] == {"tickwork": "tickwork_tool.command:main"}
