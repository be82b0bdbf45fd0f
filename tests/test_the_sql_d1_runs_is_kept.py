"""The SQL D1 runs is kept in tests/sql/, one file a statement: code may move, its SQL may not.

A deliberate change of a statement is made with `python tests/sql/render.py --write`, and shows in
review as a diff of the SQL itself.
"""
import importlib.util
from pathlib import Path

RENDER = Path(__file__).parent / "sql" / "render.py"


def _render():
    spec = importlib.util.spec_from_file_location("sql_render", RENDER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_statement_the_runtime_names_is_byte_identical_to_its_kept_text():
    render = _render()
    assert render.differences(render.statements()) == []


def test_the_kept_statements_cover_the_tick_the_console_and_the_operators_verbs():
    kept = {p.stem.split("@")[0] for p in RENDER.parent.glob("*.sql")}
    assert {"MARK_TICK", "TAKE_LEASES", "RECORD_ENDS", "HEALTH", "IS_FAILING", "PAUSE"} <= kept
    assert len(kept) > 100
