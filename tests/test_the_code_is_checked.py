"""The runtime is linted by ruff and type-checked by mypy, strictly on the tick, the stores and the
kinds of schedule (pyproject.toml's [tool.ruff] and [tool.mypy]): both run here, in `make test`."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True)


def test_ruff_finds_nothing_in_the_runtime_and_the_tools():
    checked = _run(str(BIN / "ruff"), "check", "--no-cache", "src/tickwork", "scripts")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_mypy_finds_nothing_in_the_runtime_strict_on_the_tick_the_stores_and_the_kinds():
    checked = _run(str(BIN / "mypy"), "--no-incremental", "--cache-dir", "/dev/null")
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_no_module_of_the_runtime_over_450_lines_class_over_250_or_function_over_60():
    import ast

    over = []
    for path in sorted((ROOT / "src" / "tickwork").rglob("*.py")):
        source = path.read_text()
        name = path.relative_to(ROOT / "src").as_posix()
        if len(source.splitlines()) > 450:
            over.append(f"{name}: {len(source.splitlines())} lines")
        for node in ast.walk(ast.parse(source)):
            most = 250 if isinstance(node, ast.ClassDef) else 60
            if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.end_lineno - node.lineno + 1 > most:
                    over.append(f"{name}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert over == []
