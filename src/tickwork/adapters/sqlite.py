"""SQLite on CPython with D1's semantics: each statement commits, a batch is one transaction."""

import asyncio
import sqlite3
from pathlib import Path
from typing import Sequence

from ..database import Database, Params, Row, Statement


class SQLiteDatabase(Database):
    def __init__(self, path: str | Path = ":memory:", read_only: bool = False, busy_timeout_s: float = 5.0):
        """`read_only` opens an existing file that another process may be writing: SQLite's
        own locking keeps each read consistent, and `busy_timeout_s` bounds a wait for a lock."""
        target = f"{Path(path).resolve().as_uri()}?mode=ro" if read_only else path
        # autocommit=True: no implicit transactions, so each statement commits as on D1.
        self._conn = sqlite3.connect(target, uri=read_only, timeout=busy_timeout_s, autocommit=True,
                                     check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self.statements_run = 0
        self.round_trips = 0
        self.rows_written = 0

    def apply_migrations(self, directory: str | Path) -> None:
        for script in sorted(Path(directory).glob("*.sql")):
            self._conn.executescript(script.read_text())

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        await asyncio.sleep(0)  # a round trip, as on D1: other tasks may run between statements
        self.statements_run += 1
        self.round_trips += 1
        before = self._conn.total_changes
        rows = [dict(row) for row in self._conn.execute(sql, tuple(params)).fetchall()]
        self.rows_written += self._conn.total_changes - before
        return rows

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        await asyncio.sleep(0)
        self.statements_run += len(statements)
        self.round_trips += 1
        results = []
        before = self._conn.total_changes
        self._conn.execute("BEGIN")
        try:
            for sql, params in statements:
                rows = self._conn.execute(sql, tuple(params)).fetchall()
                results.append([dict(row) for row in rows])
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")
        self.rows_written += self._conn.total_changes - before
        return results

    def close(self) -> None:
        self._conn.close()
