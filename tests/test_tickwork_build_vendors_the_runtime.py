"""`tickwork build` puts tickwork's runtime and its pinned dependencies into the Worker's
python_modules/, from what is installed beside it, offline: exactly the runtime distribution's
files, nothing of the tools; what `pywrangler sync` vendored there at the pinned versions stays
as it is. (tests/test_the_distribution.py vendors from an installed `tickwork`, by its RECORD.)"""

import os
import sys
import tomllib

from helpers import ROOT

from tickwork_tool.vendoring import runtime_files, runtime_pins, vendor_runtime

PINS = dict(runtime_pins())


def _vendored(modules, name, version, files):
    info = modules / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    for file in files:
        (modules / file).parent.mkdir(parents=True, exist_ok=True)
        (modules / file).write_text("# vendored before\n")
    (info / "RECORD").write_text("".join(f"{file},,\n" for file in files))


def _as_pywrangler_left_it(root, **versions):
    modules = root / "python_modules"
    for name, version in PINS.items():
        _vendored(modules, name, versions.get(name, version), [f"{name}_marker/{version}.py"])
    return modules


def _files(folder):
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}


def test_the_runtime_package_is_copied_into_python_modules(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path)

    vendor_runtime(tmp_path, source_holds_tickwork=False)

    assert (modules / "tickwork" / "app.py").read_bytes() == (ROOT / "src" / "tickwork" / "app.py").read_bytes()
    assert all((modules / name).read_bytes() == source.read_bytes() for name, source in runtime_files().items())
    assert (modules / "tickwork" / "tick" / "__init__.py").read_bytes() == (ROOT / "src" / "tickwork" / "tick" / "__init__.py").read_bytes()
    assert not list((modules / "tickwork").rglob("__pycache__"))


def test_run_from_this_checkout_the_runtime_is_every_module_of_src_tickwork_and_nothing_of_the_tools():
    runtime = ROOT / "src" / "tickwork"
    modules = {f"tickwork/{path.relative_to(runtime).as_posix()}" for path in runtime.rglob("*.py")}

    assert set(runtime_files()) == modules
    assert not any(name.startswith(("tickwork_build", "tickwork_cli", "tickwork_tool")) for name in runtime_files())


def test_the_vendored_runtime_is_exactly_the_distributions_files_what_an_older_one_left_removed(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path)
    for left in ("tickwork/gone.py", "tickwork/gone/__init__.py", "tickwork/__pycache__/app.cpython-313.pyc"):
        (modules / left).parent.mkdir(parents=True, exist_ok=True)
        (modules / left).write_text("# an older tickwork's\n")

    vendor_runtime(tmp_path, source_holds_tickwork=False)

    assert _files(modules / "tickwork") == {name.removeprefix("tickwork/") for name in runtime_files()}
    assert [path.name for path in (modules / "tickwork").iterdir() if path.is_dir() and not any(path.iterdir())] == []


def test_vendoring_again_rewrites_no_file_of_the_runtime_so_the_bundle_is_not_made_again_for_it(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path)
    vendor_runtime(tmp_path, source_holds_tickwork=False)
    app = modules / "tickwork" / "app.py"
    os.utime(app, ns=(1_000_000_000, 1_000_000_000))

    vendor_runtime(tmp_path, source_holds_tickwork=False)

    assert app.stat().st_mtime_ns == 1_000_000_000


def test_dependencies_vendored_at_the_pinned_versions_stay_as_they_are(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path)

    assert vendor_runtime(tmp_path, source_holds_tickwork=False) == []
    assert (modules / "croniter_marker" / f"{PINS['croniter']}.py").read_text() == "# vendored before\n"


def test_a_dependency_at_another_version_is_replaced_by_the_pinned_one(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path, croniter="6.0.0")

    changes = vendor_runtime(tmp_path, source_holds_tickwork=False)

    assert changes == [f"vendored croniter {PINS['croniter']} into python_modules/"]
    assert not (modules / "croniter-6.0.0.dist-info").exists()
    assert not (modules / "croniter_marker" / "6.0.0.py").exists()
    assert (modules / f"croniter-{PINS['croniter']}.dist-info").is_dir()
    assert (modules / "croniter" / "croniter.py").is_file()


def test_a_source_holding_the_runtime_itself_is_not_vendored_twice(tmp_path):
    _as_pywrangler_left_it(tmp_path)

    vendor_runtime(tmp_path, source_holds_tickwork=True)

    assert not (tmp_path / "python_modules" / "tickwork").exists()


def test_run_from_a_checkout_the_runtime_is_the_checkouts_not_an_old_egg_info_on_the_path(tmp_path, monkeypatch):
    """A wheel built in a checkout leaves tickwork.egg-info at its root, which is on the path when
    the command runs from there: its pins are that wheel's, and its files not the ones imported."""
    info = tmp_path / "tickwork.egg-info"
    info.mkdir()
    (info / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: tickwork\nVersion: 0.0.1\n")
    (info / "requires.txt").write_text("croniter==6.0.0\n")
    (info / "SOURCES.txt").write_text("src/tickwork/__init__.py\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())

    assert runtime_pins() == [tuple(entry.split("==")) for entry in pyproject["project"]["dependencies"]]
    assert set(runtime_files()) == {f"tickwork/{path.relative_to(ROOT / 'src' / 'tickwork').as_posix()}"
                                    for path in (ROOT / "src" / "tickwork").rglob("*.py")}
