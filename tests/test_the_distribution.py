"""The one distribution, `tickwork` (pyproject.toml): built by a backend pinned exactly, its
command's build packages an extra at the versions the build and the tests run."""

import ast
import sys
import tomllib
from fnmatch import fnmatch

import pytest
from helpers import ROOT
from packaging.specifiers import SpecifierSet
from vendor import PINNED

from tickwork_tool.command import CLI_EXTRA, main

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


@pytest.mark.parametrize("python", ["3.13.0", "3.13.2", "3.14.0", "3.14.2"])
def test_the_wheel_installs_on_the_pythons_of_the_workers_pyodides_and_the_cpythons_of_their_projects(python):
    """A Worker made today runs Python 3.14 (Pyodide 314), one made before 2026-09-08 3.13; its
    project's virtualenv, where the command runs, is CPython of either."""
    assert python in SpecifierSet(PYPROJECT["project"]["requires-python"])


def test_the_tickwork_command_is_the_wheels_console_script():
    assert PYPROJECT["project"]["scripts"] == {"tickwork": "tickwork_tool.command:main"}


def test_the_command_names_the_extras_modules_when_one_is_missing():
    extra = PYPROJECT["project"]["optional-dependencies"]["cli"]

    assert {entry.split("==")[0].replace("-", "_").lower() for entry in extra} == CLI_EXTRA


def test_tickwork_installed_without_its_extra_says_to_install_it(tmp_path, monkeypatch, capsys):
    built = [n for n in sys.modules if n.startswith(("tickwork_build.", "pydantic")) and n != "tickwork_build.problems"]
    for name in built:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "pydantic", None)  # `import pydantic` raises ModuleNotFoundError

    assert main(["build", str(tmp_path)]) == 1
    assert capsys.readouterr().err.startswith('tickwork build: pydantic is not installed, and the build needs it: '
                                              'install tickwork with its extra, pip install "tickwork[cli]"')


def test_the_wheel_ships_every_file_of_the_host_and_each_of_tickworks_migrations():
    shipped = PYPROJECT["tool"]["setuptools"]["package-data"]
    folders = {"tickwork_tool.host": ROOT / "scripts" / "host", "tickwork_tool.migrations": ROOT / "migrations"}

    for package, folder in folders.items():
        files = [path.name for path in folder.iterdir() if path.is_file() and path.suffix != ".py"]
        wanted = files if package.endswith("host") else [name for name in files if name[:2] == "00"]
        assert wanted and all(any(fnmatch(name, pattern) for pattern in shipped[package]) for name in wanted), package


def test_the_wheel_ships_every_package_of_the_runtime_the_build_the_command_and_the_tool():
    """Each folder of Python modules under a package's directory is a package the wheel lists
    (setuptools ships only those named): a new subpackage left out would be missing from it."""
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    roots = {name: ROOT / folder for name, folder in PYPROJECT["tool"]["setuptools"]["package-dir"].items()
             if folder != "."}
    wanted = {
        ".".join([name, *folder.relative_to(root).parts])
        for name, root in roots.items()
        for folder in [root, *(path.parent for path in root.rglob("*.py"))]
        if "__pycache__" not in folder.parts and folder != ROOT
    }

    assert wanted - listed == set()


TOOLS = {"tickwork_build", "tickwork_cli", "tickwork_tool", "pydantic", "pydantic_core"}


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
    found = {
        f"{path.relative_to(runtime)}: {name}"
        for path in runtime.rglob("*.py")
        for name in _imported(ast.parse(path.read_text(), str(path))) & TOOLS
    }

    assert found == set()
