"""`tickwork dev` and `tickwork tick` (and so `make dev` and `make tick`) build and bundle the
Worker again only when a file that goes into it changed, was added or removed (issue 14)."""

import os
import shutil

import pytest
from helpers import ROOT

from tickwork_tool import bundling


@pytest.fixture
def project(tmp_path):
    for name in ("src", "migrations"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "wrangler.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    (tmp_path / "build" / "worker").mkdir(parents=True)
    return tmp_path


def bundled(project):
    bundling.stamp(project, bundling.sources(project))


def test_a_bundle_made_from_the_sources_as_they_are_is_not_made_again(project):
    bundled(project)
    assert bundling.current(project, bundling.sources(project))


def test_a_source_saved_after_the_bundle_makes_it_again(project):
    bundled(project)
    source = project / "src" / "app" / "domains" / "planning" / "__init__.py"
    later = source.stat().st_mtime + 30
    os.utime(source, (later, later))
    assert not bundling.current(project, bundling.sources(project))


def test_a_source_added_or_removed_makes_it_again(project):
    bundled(project)
    (project / "src" / "app" / "domains" / "planning" / "more.py").write_text("")
    assert not bundling.current(project, bundling.sources(project))
    bundled(project)
    (project / "migrations" / "0100_example_app.sql").unlink()
    assert not bundling.current(project, bundling.sources(project))


def test_a_changed_wrangler_toml_makes_it_again(project):
    bundled(project)
    with open(project / "wrangler.toml", "a") as toml:
        toml.write("\n# changed\n")
    assert not bundling.current(project, bundling.sources(project))


def test_no_bundle_in_build_worker_is_made_again(project):
    bundled(project)
    shutil.rmtree(project / "build" / "worker")
    assert not bundling.current(project, bundling.sources(project))


def test_a_file_saved_while_the_bundle_was_made_makes_the_next_one_again(project):
    before = bundling.sources(project)
    (project / "src" / "app" / "domains" / "planning" / "more.py").write_text("")  # meanwhile
    bundling.stamp(project, before)
    assert not bundling.current(project, bundling.sources(project))
