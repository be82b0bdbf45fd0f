"""Renders every SQL statement and fragment the runtime names into tests/sql/, one file each.

`python tests/sql/render.py` checks; `--write` writes them again. A move of code leaves these files
byte-identical (git shows a renamed file at 100 % at most); a deliberate change of the SQL D1 runs
shows in review as a diff here. A name defined with different texts in two modules is kept as
NAME@family (family: the defining module's own name, `_store` dropped).
"""
from __future__ import annotations

import collections
import importlib
import pkgutil
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
SQL = re.compile(r"\b(SELECT|UPDATE|INSERT INTO|DELETE FROM|REPLACE INTO)\b")


def statements() -> dict[str, str]:
    """Every upper-case string constant of tickwork that holds SQL, by the file name it is kept in."""
    sys.path[:0] = [str(ROOT / "src")]
    import tickwork

    texts: dict[str, dict[str, set[str]]] = collections.defaultdict(lambda: collections.defaultdict(set))
    for found in pkgutil.walk_packages(tickwork.__path__, "tickwork."):
        module = importlib.import_module(found.name)
        for name, value in vars(module).items():
            if name.isupper() and isinstance(value, str) and SQL.search(value):
                texts[name][value].add(found.name.rsplit(".", 1)[-1].removesuffix("_store"))
    rendered = {}
    for name, by_text in texts.items():
        if len(by_text) == 1:
            rendered[f"{name}.sql"] = next(iter(by_text))
            continue
        for text, families in by_text.items():
            for family in families:
                rendered[f"{name}@{family}.sql"] = text
    return rendered


def differences(rendered: dict[str, str]) -> list[str]:
    kept = {p.name: p.read_text() for p in HERE.glob("*.sql")}
    said = [f"{name}: no longer rendered" for name in sorted(kept.keys() - rendered.keys())]
    said += [f"{name}: new, not kept" for name in sorted(rendered.keys() - kept.keys())]
    said += [f"{name}: its text changed" for name in sorted(rendered.keys() & kept.keys())
             if rendered[name] != kept[name]]
    return said


if __name__ == "__main__":
    rendered = statements()
    if sys.argv[1:] == ["--write"]:
        for path in HERE.glob("*.sql"):
            path.unlink()
        for name, text in rendered.items():
            (HERE / name).write_text(text)
        print(f"wrote {len(rendered)} statements to {HERE}")
    else:
        said = differences(rendered)
        print("\n".join(said) or f"{len(rendered)} statements, all as kept")
        sys.exit(1 if said else 0)
