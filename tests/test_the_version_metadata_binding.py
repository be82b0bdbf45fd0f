"""The Worker's version-metadata binding (issue 25): `[tool.tickwork] version_metadata` names the
binding wrangler.toml declares, checked by the build and written to the manifest; the Worker gives
the tick the version it binds, which a deploy's marker keeps."""

from types import SimpleNamespace

from test_build import CENSUS, problems, project
from tickwork_build.build import build

from tickwork.adapters.workers import settings_of
from tickwork.app import App

DECLARED = '\n[version_metadata]\nbinding = "CF_VERSION_METADATA"\n'


def with_binding(tmp_path, tool: str, declared: str = DECLARED):
    root = project(tmp_path, {"c.jadpo": CENSUS}, tool=tool)
    with (root / "wrangler.toml").open("a") as wrangler:
        wrangler.write(declared)
    return root


def test_the_binding_wrangler_declares_is_written_to_the_manifest(tmp_path):
    root = with_binding(tmp_path, 'version_metadata = "CF_VERSION_METADATA"\n')
    assert 'VERSION_METADATA = \'CF_VERSION_METADATA\'' in build(root).manifest.read_text()


def test_without_the_setting_the_manifest_names_no_binding(tmp_path):
    root = with_binding(tmp_path, "")
    assert "VERSION_METADATA = None" in build(root).manifest.read_text()


def test_a_name_wrangler_does_not_declare_is_version_metadata_invalid_at_its_line(tmp_path):
    root = with_binding(tmp_path, 'version_metadata = "VERSION"\n')
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == ("settings.version_metadata_invalid", "pyproject.toml", 3)
    assert "it declares CF_VERSION_METADATA" in problem.message
    assert '[version_metadata] binding = "VERSION"' in problem.mend


def test_a_setting_with_no_binding_declared_or_not_a_name_is_refused(tmp_path):
    [none_declared] = problems(with_binding(tmp_path / "a", 'version_metadata = "CF_VERSION_METADATA"\n', ""))
    assert none_declared.code == "settings.version_metadata_invalid" and "it declares none" in none_declared.message
    [not_a_name] = problems(with_binding(tmp_path / "b", "version_metadata = 5\n"))
    assert not_a_name.code == "settings.version_metadata_invalid" and "not the name of a binding" in not_a_name.message


def test_the_worker_gives_the_tick_the_version_its_binding_holds():
    app = App("DB", ())
    app.version_metadata = "CF_VERSION_METADATA"
    bound = SimpleNamespace(id="7c1e9a40-1d2b-4c3e-9f00-5a6b7c8d9e0f", tag="v42", timestamp="2026-12-02T09:14:00Z")
    assert settings_of(app, SimpleNamespace(CF_VERSION_METADATA=bound)) == {"tickwork:version": {
        "id": "7c1e9a40-1d2b-4c3e-9f00-5a6b7c8d9e0f", "tag": "v42", "timestamp": "2026-12-02T09:14:00Z"}}
    assert settings_of(app, SimpleNamespace()) == {}
    assert settings_of(App("DB", ()), SimpleNamespace(CF_VERSION_METADATA=bound)) == {}
