"""What the Python benchmarks share, on CPython and in the host's Pyodide alike."""


class Counters:
    """What a database adapter counted over one stretch."""

    FIELDS = ("statements_run", "round_trips", "rows_written", "rows_read")

    def __init__(self, db):
        self.db = db
        self.before = {f: getattr(db, f, None) for f in self.FIELDS}

    def taken(self) -> dict:
        names = {"statements_run": "statements"}
        return {
            names.get(f, f): getattr(self.db, f) - before
            for f, before in self.before.items()
            if before is not None
        }


def migrated_sqlite():
    """A new in-memory SQLite store with D1's semantics and tickwork's tables (CPython only)."""
    from pathlib import Path

    from tickwork.adapters.sqlite import SQLiteDatabase

    db = SQLiteDatabase()
    db.apply_migrations(Path(__file__).resolve().parents[2] / "migrations")
    return db


def report(label: str, results: list[dict], problems: list[str], table: str | None = None) -> None:
    """Prints one JSON line per measurement (then `table`, if any) and exits 1 naming the goals missed."""
    import json
    import sys

    for result in results:
        print(json.dumps(result), flush=True)
    if table is not None:
        print(table, flush=True)
    if problems:
        print(f"{label}: goals missed:\n  " + "\n  ".join(problems), file=sys.stderr)
        sys.exit(1)
