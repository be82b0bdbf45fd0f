"""`tickwork build` puts tickwork's runtime and its pinned dependencies into the Worker's
python_modules/, from what is installed beside it, offline; what `pywrangler sync` vendored
there at the pinned versions stays as it is."""

from helpers import ROOT

from tickwork_tool.vendoring import runtime_pins, vendor_runtime

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


def test_the_runtime_package_is_copied_into_python_modules(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path)

    vendor_runtime(tmp_path, source_holds_tickwork=False)

    assert (modules / "tickwork" / "tick" / "__init__.py").read_bytes() == (ROOT / "src" / "tickwork" / "tick" / "__init__.py").read_bytes()
    assert not list((modules / "tickwork").rglob("__pycache__"))


def test_dependencies_vendored_at_the_pinned_versions_stay_as_they_are(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path)

    assert vendor_runtime(tmp_path, source_holds_tickwork=False) == []
    assert (modules / "croniter_marker" / f"{PINS['croniter']}.py").read_text() == "# vendored before\n"


def test_a_dependency_at_another_version_is_replaced_by_the_pinned_one(tmp_path):
    modules = _as_pywrangler_left_it(tmp_path, croniter="6.0.0")

    changes = vendor_runtime(tmp_path, source_holds_tickwork=False)

    assert changes == [f"vendored croniter {PINS['croniter']} into python_modules/"]
    assert not (modules / "croniter-6.0.0.dist-info").exists() and not (modules / "croniter_marker" / "6.0.0.py").exists()
    assert (modules / f"croniter-{PINS['croniter']}.dist-info").is_dir()
    assert (modules / "croniter" / "croniter.py").is_file()


def test_a_source_holding_the_runtime_itself_is_not_vendored_twice(tmp_path):
    _as_pywrangler_left_it(tmp_path)

    vendor_runtime(tmp_path, source_holds_tickwork=True)

    assert not (tmp_path / "python_modules" / "tickwork").exists()
