"""SQLite on CPython with D1's semantics: each statement commits, a batch is one transaction;
values bound and read back as a Worker's D1 binding does, and an invocation's calls capped."""

import asyncio
import sqlite3
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Sequence

from ..database import PAST_THE_CAP, Database, Params, Row, Statement, queries_allowed

# JS's largest safe integer. Pyodide hands an int to JS as a number strictly within it, else as
# a BigInt, and a JS number back to Python as an int when it is within it, bounds included.
_SAFE = 2**53 - 1

# D1's largest string, blob or row (2,000,000 bytes): past it D1 refuses (SQLITE_TOOBIG), and so
# does this store for a Worker's semantics, so a test sees what the Worker would.
D1_LONGEST = 2_000_000


class D1Refused(sqlite3.OperationalError):
    """What D1 refuses where SQLite would not: a BigInt bound, a call past the invocation's."""


class _Invocation:
    def __init__(self, db: "SQLiteDatabase", allowed: int):
        self.db, self.allowed, self.calls = db, allowed, 0


# Each set of migration scripts applied once, by their names and text: what an empty store copies.
_MIGRATED: dict[tuple[tuple[str, str], ...], sqlite3.Connection] = {}

_UNDER_WAY: ContextVar[_Invocation | None] = ContextVar("tickwork_sqlite_invocation", default=None)


class SQLiteDatabase(Database):
    def __init__(self, path: str | Path = ":memory:", read_only: bool = False, busy_timeout_s: float = 5.0,
                 as_the_worker: bool = True):
        """`read_only` opens an existing file that another process may be writing: SQLite's
        own locking keeps each read consistent, and `busy_timeout_s` bounds a wait for a lock.
        `as_the_worker`: values bound and read back as through the Worker's D1 binding (ints as
        REAL, BigInts refused, whole numbers back as ints); else as SQLite binds them."""
        target = f"{Path(path).resolve().as_uri()}?mode=ro" if read_only else path
        # autocommit=True: no implicit transactions, so each statement commits as on D1.
        self._conn = sqlite3.connect(target, uri=read_only, timeout=busy_timeout_s, autocommit=True,
                                     check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        if as_the_worker:
            self._conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, D1_LONGEST)
        self.as_the_worker = as_the_worker
        self.statements_run = 0
        self.round_trips = 0
        self.rows_written = 0

    def apply_migrations(self, directory: str | Path) -> None:
        """The scripts in `directory`, in their order. An empty database is given a copy of the
        same scripts as first applied in this process (tests open thousands of stores, and a copy
        is some five times quicker than the scripts); one with tables has them run on it."""
        scripts = tuple((script.name, script.read_text()) for script in sorted(Path(directory).glob("*.sql")))
        empty = self._conn.execute("SELECT COUNT(*) FROM sqlite_schema").fetchone()[0] == 0
        if empty and (template := _MIGRATED.get(scripts)) is not None:
            template.backup(self._conn)
            return
        for _, text in scripts:
            self._conn.executescript(text)
        if empty:
            _MIGRATED[scripts] = sqlite3.connect(":memory:", autocommit=True, check_same_thread=False)
            self._conn.backup(_MIGRATED[scripts])

    @contextmanager
    def invocation(self, statements_per_tick: int | None = None):
        if (under_way := _UNDER_WAY.get()) is not None and under_way.db is self:
            yield  # a tick of the cron invocation under way: its calls are that one's
            return
        begun = _UNDER_WAY.set(_Invocation(self, queries_allowed(statements_per_tick)))
        try:
            yield
        finally:
            _UNDER_WAY.reset(begun)

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        await asyncio.sleep(0)  # a round trip, as on D1: other tasks may run between statements
        bound = self._bound(params)
        self._call()
        self.statements_run += 1
        self.round_trips += 1
        before = self._conn.total_changes
        rows = self._rows(self._conn.execute(sql, bound).fetchall())
        self.rows_written += self._conn.total_changes - before
        return rows

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        await asyncio.sleep(0)
        bound = [(sql, self._bound(params)) for sql, params in statements]
        self._call()
        self.statements_run += len(statements)
        self.round_trips += 1
        results = []
        before = self._conn.total_changes
        self._conn.execute("BEGIN")
        try:
            for sql, params in bound:
                results.append(self._rows(self._conn.execute(sql, params).fetchall()))
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")
        self.rows_written += self._conn.total_changes - before
        return results

    def _call(self) -> None:
        """One call to D1 (a batch is one) in the invocation under way, refused past its cap."""
        under_way = _UNDER_WAY.get()
        if under_way is not None and under_way.db is self:
            under_way.calls += 1
            if under_way.calls > under_way.allowed:
                raise D1Refused(PAST_THE_CAP)

    def _bound(self, params: Params) -> tuple:
        return tuple(_as_js(value) for value in params) if self.as_the_worker else tuple(params)

    def _rows(self, rows: list[sqlite3.Row]) -> list[Row]:
        if not self.as_the_worker:
            return [dict(row) for row in rows]
        return [{key: _from_js(value) for key, value in zip(row.keys(), row, strict=True)} for row in rows]

    def close(self) -> None:
        self._conn.close()


def _as_js(value: Any) -> Any:
    """A parameter as D1 gets it from Python: an int (a bool too: D1 binds true as 1) as a JS
    number, which D1 binds as REAL; one too large for a number is a BigInt, which D1 refuses."""
    if isinstance(value, int):
        if not -_SAFE < value < _SAFE:
            raise D1Refused(f"D1_TYPE_ERROR: Type 'bigint' not supported for value '{int(value)}'")
        return float(value)
    return value


def _from_js(value: Any) -> Any:
    """A value as it reaches Python from D1: a number (an INTEGER is one too, rounded past 2^53),
    an int when it is a safe integer."""
    if isinstance(value, int):
        return value if -_SAFE <= value <= _SAFE else float(value)
    if isinstance(value, float) and value.is_integer() and -_SAFE <= value <= _SAFE:
        return int(value)
    return value
