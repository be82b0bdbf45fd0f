"""Two distributions from this repository, each built by a backend pinned exactly: `tickwork`
(pyproject.toml), the runtime a Worker vendors, and `tickwork-dev` (scripts/pyproject.toml), the
build, the command, the host and tickwork's migrations, at the runtime's very version, with the
build's packages at the versions the build and the tests run. `tickwork[cli]` is the second."""

import ast
import shutil
import subprocess
import sys
import tomllib
import zipfile
from fnmatch import fnmatch
from pathlib import Path

import pytest
from helpers import ROOT, TEMPLATE_ENTRY, TEMPLATE_WRANGLER_TOML
from packaging.specifiers import SpecifierSet
from vendor import PINNED

from tickwork_tool.command import CLI_EXTRA, USAGE, main

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
TOOLS_ROOT = ROOT / "scripts"
TOOLS = tomllib.loads((TOOLS_ROOT / "pyproject.toml").read_text())
VERSION = PYPROJECT["project"]["version"]
BOTH = pytest.mark.parametrize("project", [PYPROJECT, TOOLS], ids=["tickwork", "tickwork-dev"])
# What a build from a checkout leaves out: what the set-up, the build and the tests write.
NOT_THE_SOURCE = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "python_modules", "build", ".wrangler", "tests", "__pycache__",
    "*.egg-info", ".pytest_cache",
)


def _pins(lines) -> dict[str, str]:
    entries = (line.split("#")[0].strip() for line in lines)
    return dict(entry.lower().replace("_", "-").split("==") for entry in entries if entry)


def _builds_packages() -> list[str]:
    """The tools' requirements but the runtime: the build's pydantic and its own."""
    return [entry for entry in TOOLS["project"]["dependencies"] if not entry.startswith("tickwork==")]


@BOTH
def test_the_build_backend_is_pinned_exactly(project):
    requires = project["build-system"]["requires"]

    assert requires and all(PINNED.fullmatch(entry) for entry in requires)


def test_the_tools_pin_the_builds_packages_at_the_versions_the_tests_run():
    tools = _pins(_builds_packages())
    dev = _pins((ROOT / "requirements" / "dev.txt").read_text().splitlines())

    assert "pydantic" in tools
    assert {name: dev.get(name) for name in tools} == tools


def test_tickwork_cli_is_the_tools_at_the_runtimes_version_and_the_tools_pin_that_runtime():
    assert PYPROJECT["project"]["optional-dependencies"] == {"cli": [f"tickwork-dev=={VERSION}"]}
    assert TOOLS["project"]["name"] == "tickwork-dev" and TOOLS["project"]["version"] == VERSION
    assert f"tickwork=={VERSION}" in TOOLS["project"]["dependencies"]


@BOTH
@pytest.mark.parametrize("python", ["3.13.0", "3.13.2", "3.14.0", "3.14.2"])
def test_the_wheel_installs_on_the_pythons_of_the_workers_pyodides_and_the_cpythons_of_their_projects(python, project):
    """A Worker made today runs Python 3.14 (Pyodide 314), one made before 2026-09-08 3.13; its
    project's virtualenv, where the command runs, is CPython of either."""
    assert python in SpecifierSet(project["project"]["requires-python"])


def test_the_tickwork_command_is_the_tools_console_script_and_not_the_runtimes():
    assert TOOLS["project"]["scripts"] == {"tickwork": "tickwork_tool.command:main"}
    assert "scripts" not in PYPROJECT["project"]


def test_the_command_names_the_extras_modules_when_one_is_missing():
    assert {entry.split("==")[0].replace("-", "_").lower() for entry in _builds_packages()} == CLI_EXTRA


def test_tickwork_installed_without_its_extra_says_to_install_it(tmp_path, monkeypatch, capsys):
    built = [n for n in sys.modules if n.startswith(("tickwork_build.", "pydantic")) and n != "tickwork_build.problems"]
    for name in built:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pydantic", None)  # `import pydantic` raises ModuleNotFoundError

    assert main(["build", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith('tickwork build: pydantic is not installed, and the build needs it: '
                                              'install tickwork with its extra, pip install "tickwork[cli]"')


def test_the_tools_wheel_ships_every_file_of_the_host_and_each_of_tickworks_migrations():
    shipped = TOOLS["tool"]["setuptools"]["package-data"]
    folders = {"tickwork_tool.host": ROOT / "scripts" / "host", "tickwork_tool.migrations": ROOT / "migrations"}

    for package, folder in folders.items():
        assert (TOOLS_ROOT / TOOLS["tool"]["setuptools"]["package-dir"][package]).resolve() == folder
        files = [path.name for path in folder.iterdir() if path.is_file() and path.suffix != ".py"]
        wanted = files if package.endswith("host") else [name for name in files if name[:2] == "00"]
        assert wanted and all(any(fnmatch(name, pattern) for pattern in shipped[package]) for name in wanted), package


def test_the_tools_wheel_ships_every_package_of_the_build_the_command_and_the_tool():
    """Each folder of Python modules under a package's directory is a package the wheel lists
    (setuptools ships only those named): a new subpackage left out would be missing from it."""
    listed = set(TOOLS["tool"]["setuptools"]["packages"])
    folders = TOOLS["tool"]["setuptools"]["package-dir"]
    roots = {name: (TOOLS_ROOT / folders.get(name, name)).resolve() for name in listed if "." not in name}
    roots |= {name: (TOOLS_ROOT / folder).resolve() for name, folder in folders.items() if folder != ".."}
    wanted = {
        ".".join([name, *folder.relative_to(root).parts])
        for name, root in roots.items()
        for folder in [root, *(path.parent for path in root.rglob("*.py"))]
        if "__pycache__" not in folder.parts
    }

    assert wanted - listed == set()


def test_every_folder_of_the_runtimes_modules_is_a_package_the_runtimes_wheel_finds():
    """The runtime's packages are found, not listed: each folder holding its modules has an
    __init__.py (a folder without one would be left out of the wheel, and so of the Worker)."""
    found = PYPROJECT["tool"]["setuptools"]["packages"]["find"]
    runtime = ROOT / "src" / "tickwork"
    folders = {path.parent for path in runtime.rglob("*.py") if "__pycache__" not in path.parts}
    unfound = sorted(str(folder.relative_to(runtime)) for folder in folders if not (folder / "__init__.py").exists())

    assert found == {"where": ["src"], "include": ["tickwork", "tickwork.*"], "namespaces": False}
    assert unfound == []


def _imported(tree: ast.AST) -> set[str]:
    """The top-level names a module imports: its import statements, and the names it hands
    `importlib.import_module` or `__import__` as text."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            names.add(str(node.args[0].value))
    return {name.split(".")[0] for name in names}


def test_the_runtime_imports_nothing_of_the_tools_nor_pydantic():
    """The Worker vendors the runtime alone: an import of the build, the command or pydantic would
    fail there, or pull pydantic into the Worker's start."""
    runtime = ROOT / "src" / "tickwork"
    tools = {"tickwork_build", "tickwork_cli", "tickwork_tool", "pydantic", "pydantic_core"}
    found = {
        f"{path.relative_to(runtime)}: {name}"
        for path in runtime.rglob("*.py")
        for name in _imported(ast.parse(path.read_text(), str(path))) & tools
    }

    assert found == set()


# Building both wheels with the pinned backend, and a virtualenv installing them: 20-60 s.
SLOW = pytest.mark.faulthandler_timeout(600)


def _ok(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{' '.join(map(str, command))} failed:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A copy of this checkout as a fresh clone has it, where both wheels are built."""
    source = tmp_path_factory.mktemp("wheels") / "tickwork"
    shutil.copytree(ROOT, source, ignore=NOT_THE_SOURCE)
    return source


@pytest.fixture(scope="module")
def wheels(checkout) -> dict[str, Path]:
    out = checkout.parent / "dist"
    for project in (checkout, checkout / "scripts"):
        _ok([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(project)],
            checkout.parent)
    return {wheel.name.split("-")[0]: wheel for wheel in out.glob("*.whl")}


def _read(wheel: Path) -> tuple[set[str], dict[str, str]]:
    """The files a wheel installs, and its .dist-info's own files by name."""
    with zipfile.ZipFile(wheel) as opened:
        names = set(opened.namelist())
        info = {name.split("/", 1)[1]: opened.read(name).decode() for name in names if ".dist-info/" in name}
    return {name for name in names if ".dist-info/" not in name}, info


def _tree(folder: Path, under: str, patterns: tuple[str, ...] = ("*.py",)) -> set[str]:
    return {f"{under}/{path.relative_to(folder).as_posix()}" for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts and any(fnmatch(path.name, p) for p in patterns)}


@SLOW
def test_both_wheels_are_pure_python_for_every_python(wheels):
    assert sorted(wheel.name for wheel in wheels.values()) == [
        f"tickwork-{VERSION}-py3-none-any.whl", f"tickwork_dev-{VERSION}-py3-none-any.whl"]
    for wheel in wheels.values():
        assert "Root-Is-Purelib: true" in _read(wheel)[1]["WHEEL"].splitlines()


@SLOW
def test_building_the_wheels_in_a_checkout_leaves_its_source_as_it_was(checkout, wheels):
    """The build lays src/ out in build/app, the Worker's upload: setuptools' tickwork.egg-info,
    written beside the packages it finds unless told otherwise, would go there with it."""
    source = {path.relative_to(ROOT / "src") for path in (ROOT / "src").rglob("*") if "__pycache__" not in path.parts}

    assert {path.relative_to(checkout / "src") for path in (checkout / "src").rglob("*")} == source
    assert (checkout / "tickwork.egg-info").is_dir()


@SLOW
def test_the_runtimes_wheel_holds_the_runtime_alone_pinning_what_the_worker_vendors(wheels):
    files, info = _read(wheels["tickwork"])
    requires = [line.removeprefix("Requires-Dist: ") for line in info["METADATA"].splitlines()
                if line.startswith("Requires-Dist: ")]

    assert files == _tree(ROOT / "src" / "tickwork", "tickwork")
    assert requires == [*PYPROJECT["project"]["dependencies"], f'tickwork-dev=={VERSION}; extra == "cli"']
    assert "entry_points.txt" not in info


@SLOW
def test_the_tools_wheel_holds_the_build_the_command_the_host_and_tickworks_migrations_at_the_runtimes_version(wheels):
    files, info = _read(wheels["tickwork_dev"])
    requires = [line.removeprefix("Requires-Dist: ") for line in info["METADATA"].splitlines()
                if line.startswith("Requires-Dist: ")]

    assert files == (
        _tree(TOOLS_ROOT / "tickwork_build", "tickwork_build") | _tree(TOOLS_ROOT / "tickwork_cli", "tickwork_cli")
        | _tree(TOOLS_ROOT / "tickwork_tool", "tickwork_tool")
        | _tree(TOOLS_ROOT / "host", "tickwork_tool/host", ("*.py", "*.mjs", "*.json"))
        | {"tickwork_tool/node/package.json", "tickwork_tool/node/package-lock.json"}
        | _tree(ROOT / "migrations", "tickwork_tool/migrations", ("00[0-9][0-9]_*.sql",))
    )
    assert {"tickwork_tool/host/cli.mjs", "tickwork_tool/migrations/0001_schedules.sql"} <= files
    assert requires == [f"tickwork=={VERSION}", *_builds_packages()]
    assert info["entry_points.txt"].split() == ["[console_scripts]", "tickwork", "=", "tickwork_tool.command:main"]


@pytest.fixture(scope="module")
def tickwork(wheels, tmp_path_factory) -> Path:
    """The `tickwork` command of a fresh virtualenv that installed `tickwork[cli]` from the wheels."""
    venv = tmp_path_factory.mktemp("venv") / ".venv"
    _ok([sys.executable, "-m", "venv", str(venv)], venv.parent)
    _ok([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{wheels['tickwork']}[cli]",
         str(wheels["tickwork_dev"])], venv.parent)
    return venv / "bin" / "tickwork"


@SLOW
def test_tickwork_cli_installed_from_the_wheels_gives_the_tickwork_command(tickwork):
    assert _ok([str(tickwork), "--help"], tickwork.parent).stdout == USAGE


@SLOW
def test_the_installed_command_adds_tickwork_to_a_worker_and_vendors_the_runtimes_recorded_files_alone(
        tickwork, wheels, tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "my-worker"\nversion = "0.1.0"\n')
    (tmp_path / "wrangler.toml").write_text(TEMPLATE_WRANGLER_TOML)
    (tmp_path / "src" / "entry.py").write_text(TEMPLATE_ENTRY)

    [installed] = tickwork.parent.parent.glob("lib/python3*/site-packages/tickwork")
    (installed / "not_recorded.py").write_text("# in the folder, not in the distribution's RECORD\n")

    said = _ok([str(tickwork), "init", "--no-node"], tmp_path).stdout
    built = _ok([str(tickwork), "build"], tmp_path).stdout

    assert "added migrations/0001_schedules.sql: tickwork's migration" in said
    assert sorted(path.name for path in (tmp_path / "migrations").iterdir()) == sorted(
        path.name for path in (ROOT / "migrations").glob("00[0-9][0-9]_*.sql"))
    assert "built 0 schedule(s) (none)" in built
    modules = tmp_path / "python_modules"
    vendored = {f"tickwork/{path.relative_to(modules / 'tickwork').as_posix()}"
                for path in (modules / "tickwork").rglob("*") if path.is_file()}
    assert vendored == _read(wheels["tickwork"])[0] and "tickwork/not_recorded.py" not in vendored
    assert sorted(path.name for path in modules.iterdir() if path.name.startswith("tickwork")) == ["tickwork"]
