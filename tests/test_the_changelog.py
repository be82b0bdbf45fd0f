"""CHANGELOG.md keeps the version policy's form (docs/reference/versions.md): an entry a version,
newest first after Unreleased, the version the distributions carry among them, each entry's
changes under Keep a Changelog's headings, behaviour changes under their own."""

import re
import tomllib

from helpers import ROOT

TEXT = (ROOT / "CHANGELOG.md").read_text()
HEADINGS = {"Added", "Changed", "Behaviour changed", "Deprecated", "Removed", "Fixed", "Security"}


def versions() -> list[str]:
    return re.findall(r"^## \[([^\]]+)\]", TEXT, re.MULTILINE)


def test_unreleased_comes_first_then_each_version_newest_first():
    found = versions()

    assert found[0] == "Unreleased"
    released = [tuple(map(int, version.split("."))) for version in found[1:]]
    assert released == sorted(released, reverse=True) and len(set(released)) == len(released)


def test_the_version_the_distributions_carry_has_its_entry_with_a_date_and_a_link():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]

    assert re.search(rf"^## \[{re.escape(version)}\] - \d{{4}}-\d{{2}}-\d{{2}}$", TEXT, re.MULTILINE)
    assert re.search(rf"^\[{re.escape(version)}\]: https://github.com/tickwork/tickwork/", TEXT, re.MULTILINE)


def test_changes_are_under_the_headings_the_policy_names():
    assert set(re.findall(r"^### (.+)$", TEXT, re.MULTILINE)) <= HEADINGS

