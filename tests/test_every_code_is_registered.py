"""Every problem code raised anywhere in tickwork is in the one registry (tickwork.codes), and
the registry keeps none that nothing raises: the reference page made from it cannot differ from
what a user meets."""

import ast
import re
from pathlib import Path

from tickwork.codes import CODES

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [*sorted((ROOT / "src" / "tickwork").rglob("*.py")), *sorted((ROOT / "scripts").rglob("*.py"))]
FAMILIES = "schedule|purge|settings|deployable|declaration|domain|backfill|items|event|consumer|remake|terminate"
# A code as a string says it: the whole string, or its start before ": " (an operator's answer).
CODE = re.compile(rf"({FAMILIES})\.[a-z0-9_]+(?=$|: )")
# The codes made from a part (f"settings.{key}_invalid"): each part the code fills in.
MADE = {
    "settings.{key}_invalid": ("source", "app"),  # settings.directories, over _DIRECTORIES
    "schedule.{item}_invalid": ("retry", "limit", "at", "expires"),  # per_item._text and _moment
}


def raised_codes() -> dict[str, str]:
    """Each code written in the code, with the first file that writes it."""
    found: dict[str, str] = {}
    for path in SOURCES:
        if path.name == "codes.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            for code in _codes_of(node):
                found.setdefault(code, str(path.relative_to(ROOT)))
    return found


def _codes_of(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        match = CODE.match(node.value)
        return [match.group(0)] if match else []
    if isinstance(node, ast.JoinedStr) and isinstance(node.values[0], ast.Constant):
        pattern = "".join(part.value if isinstance(part, ast.Constant) else "{" + ast.unparse(part.value) + "}"
                          for part in node.values[:3])
        for made, parts in MADE.items():
            if pattern.startswith(made):
                return [made.split("{")[0] + part + made.split("}")[1] for part in parts]
        if re.match(rf"({FAMILIES})\.[a-z0-9_]*\{{", pattern):
            return [pattern]  # a code made from a part MADE does not list: unregistered until it does
    return []


def test_every_code_raised_is_in_the_registry():
    unregistered = {code: where for code, where in raised_codes().items() if code not in CODES}
    assert unregistered == {}


def test_the_registry_keeps_no_code_that_nothing_raises():
    assert set(CODES) - set(raised_codes()) == set()


def test_each_code_says_what_it_means_and_how_to_mend_it():
    for code, entry in CODES.items():
        assert entry.means and entry.mend, code
        assert CODE.fullmatch(code), code


def test_the_build_reports_no_problem_under_a_code_the_registry_lacks():
    import pytest
    from tickwork_build.problems import Problem

    assert Problem("schedule.every_invalid", "`every: 0m` ...", "write e.g. `every: 15m`", "a.jadpo", 3).code
    with pytest.raises(ValueError, match="schedule.evry_invalid is no code of tickwork.codes.CODES"):
        Problem("schedule.evry_invalid", "`every: 0m` ...", "write e.g. `every: 15m`", "a.jadpo", 3)
