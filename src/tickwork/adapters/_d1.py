"""D1 and Queues through the `workers-runtime-sdk` bindings: the SDK's objects, nothing else.

Under compat date >= 2026-04-21 the SDK wraps `self.env`: a D1 binding's results arrive as dicts
and `None` binds as NULL. Imported by the handler that first reaches D1 or a queue, never at a
cold start (the façade, adapters/workers.py, imports it lazily).
"""

from __future__ import annotations

from typing import Sequence

from ..database import Database, Params, Row, Statement


class D1Database(Database):
    def __init__(self, binding):
        self._binding = binding
        self.statements_run = 0
        self.round_trips = 0
        self.rows_written = 0
        self.rows_read = 0

    def _prepare(self, sql: str, params: Params):
        statement = self._binding.prepare(sql)
        return statement.bind(*params) if params else statement

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        self.statements_run += 1
        self.round_trips += 1
        result = await self._prepare(sql, params).all()
        return self._rows(result)

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        self.statements_run += len(statements)
        self.round_trips += 1
        results = await self._binding.batch([self._prepare(sql, p) for sql, p in statements])
        return [self._rows(result) for result in results]

    def _rows(self, result) -> list[Row]:
        meta = result.get("meta") or {}
        self.rows_read += int(meta.get("rows_read") or 0)
        self.rows_written += int(meta.get("rows_written") or 0)
        return [dict(row) for row in (result["results"] or [])]


class Queue:
    """A Queue binding: the batch send, each body a message."""

    def __init__(self, binding):
        self._binding = binding

    async def send_batch(self, bodies: list[dict]) -> None:
        await self._binding.sendBatch([{"body": body} for body in bodies])

    async def send_delayed(self, messages: list[tuple[dict, int]]) -> None:
        """Each body delivered after its delay in whole seconds (`delaySeconds`), in one batch."""
        await self._binding.sendBatch([{"body": body, "delaySeconds": delay} for body, delay in messages])


class Message:
    """A queue message, its body as Python values."""

    def __init__(self, message):
        self._message = message
        self.id = str(message.id)
        self.attempts = int(message.attempts)
        body = message.body
        self.body = body.to_py() if hasattr(body, "to_py") else body

    def ack(self) -> None:
        self._message.ack()

    def retry(self) -> None:
        self._message.retry()
