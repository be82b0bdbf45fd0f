"""Both distributions carry the metadata a package index expects: the SPDX license with its text,
a readme, authors, keywords, classifiers and the project's own URLs; built (sdist and wheel for
the runtime, the wheel for the tools, whose sdist could not hold the migrations it ships from
../), `twine check --strict` passes on each."""

import email
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from helpers import ROOT

PROJECTS = {"tickwork": ROOT, "tickwork-dev": ROOT / "scripts"}
URLS = {"Homepage", "Documentation", "Repository", "Issues", "Changelog"}
SLOW = pytest.mark.faulthandler_timeout(600)
NOT_THE_SOURCE = shutil.ignore_patterns(".git", ".venv", "node_modules", "python_modules", "build", ".wrangler",
                                        "tests", "__pycache__", "*.egg-info", ".pytest_cache", "site")


def project_of(name: str) -> dict:
    return tomllib.loads((PROJECTS[name] / "pyproject.toml").read_text())["project"]


@pytest.mark.parametrize("name", PROJECTS)
def test_each_distribution_says_its_license_readme_authors_and_urls(name):
    project = project_of(name)

    assert project["license"] == "Apache-2.0" and project["license-files"] == ["LICENSE"]
    assert (PROJECTS[name] / "LICENSE").read_text() == (ROOT / "LICENSE").read_text()
    assert (PROJECTS[name] / project["readme"]).is_file()
    assert project["authors"] and project["keywords"]
    assert not any(classifier.startswith("License ::") for classifier in project["classifiers"])
    assert set(project["urls"]) == URLS
    assert all(url.startswith("https://github.com/tickwork/tickwork") or url == "https://tickwork.github.io/tickwork/"
               for url in project["urls"].values())


def test_the_license_is_apache_2_0_whole():
    text = (ROOT / "LICENSE").read_text()

    assert text.lstrip().startswith("Apache License\n                           Version 2.0, January 2004")
    assert "END OF TERMS AND CONDITIONS" in text and "9. Accepting Warranty or Additional Liability." in text


def _ok(command: list[str], cwd: Path) -> None:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> list[Path]:
    """The runtime's sdist and wheel and the tools' wheel, built by the pinned backend from a copy
    of the checkout as a fresh clone has it."""
    source = tmp_path_factory.mktemp("metadata") / "tickwork"
    shutil.copytree(ROOT, source, ignore=NOT_THE_SOURCE, symlinks=True)
    out = source.parent / "dist"
    _ok([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(source)], source.parent)
    _ok([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(source / "scripts")], source.parent)
    return sorted(out.iterdir())


@SLOW
def test_twine_check_strict_passes_on_each_distribution(built):
    names = [path.name for path in built]

    assert len(built) == 3 and sum(name.endswith(".tar.gz") for name in names) == 1, names
    _ok([sys.executable, "-m", "twine", "check", "--strict", *map(str, built)], ROOT)


@SLOW
def test_each_wheel_ships_the_license_and_says_it(built):
    for wheel in (path for path in built if path.suffix == ".whl"):
        with zipfile.ZipFile(wheel) as opened:
            names = opened.namelist()
            metadata = email.message_from_bytes(opened.read(next(n for n in names if n.endswith("/METADATA"))))
        assert metadata["License-Expression"] == "Apache-2.0", wheel.name
        assert any(name.endswith(".dist-info/licenses/LICENSE") for name in names), wheel.name
        assert {value.split(",")[0] for value in metadata.get_all("Project-URL")} == URLS, wheel.name
        assert metadata["Description-Content-Type"] == "text/markdown", wheel.name
