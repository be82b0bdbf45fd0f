"""D1 faults, one call at a time, around the real SQLite store: a call fails before it runs, or
after it committed (a timeout whose write landed). Nothing else about the store is changed."""

from typing import Callable, Sequence

from tickwork.database import Database, Params, Row, Statement


class D1Error(Exception):
    """What the binding raises: D1_ERROR, a network error, a timeout."""


class Wrapped(Database):
    """A database around the real one: each call, with its statements, goes through `_call`."""

    def __init__(self, inner: Database):
        self.inner = inner

    @property
    def statements_run(self) -> int:
        return self.inner.statements_run

    @property
    def round_trips(self) -> int:
        return self.inner.round_trips

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        return await self._call([sql], lambda: self.inner.all(sql, params))

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        return await self._call([sql for sql, _ in statements], lambda: self.inner.batch(statements))

    async def _call(self, sqls, send):
        return await send()


class Faulty(Wrapped):
    """Wraps a database. The calls that `fails` picks (by call number from 1, a batch being one
    call, and its statements) raise; with `landed`, only after they committed."""

    def __init__(self, inner: Database, fails: Callable[[int, Sequence[str]], bool], landed=False,
                 says: str = "D1_ERROR"):
        super().__init__(inner)
        self.fails = fails
        self.landed = landed
        self.says = says
        self.calls = 0
        self.failed: list[int] = []

    async def _call(self, sqls, send):
        self.calls += 1
        failing = self.fails(self.calls, sqls)
        if failing:
            self.failed.append(self.calls)
            if not self.landed:
                raise D1Error(f"{self.says}: call {self.calls} failed before it ran")
        result = await send()
        if failing:
            raise D1Error(f"{self.says}: call {self.calls} timed out after it committed")
        return result


def at_call(number: int):
    return lambda call, sqls: call == number


def first_with(statement: str):
    """Fails the first call that sends `statement` (a constant of the store), once."""
    seen = []

    def fails(call, sqls):
        if statement in sqls and not seen:
            seen.append(call)
            return True
        return False

    return fails


def every_call_with(statement: str):
    return lambda call, sqls: statement in sqls


class Meanwhile(Wrapped):
    """Wraps a database: before the first call that sends `statement` (a constant of the store),
    `meanwhile()` is awaited, so that another tick's work lands between what a tick read and
    what it writes, in that order every time."""

    def __init__(self, inner: Database, statement: str, meanwhile):
        super().__init__(inner)
        self.statement = statement
        self.meanwhile = meanwhile
        self.happened = False

    async def _call(self, sqls, send):
        if not self.happened and self.statement in sqls:
            self.happened = True
            await self.meanwhile()
        return await send()


class Killed(BaseException):
    """The worker is gone: nothing of the tick runs on (no `except Exception` catches it)."""


class KilledAfter(Wrapped):
    """Wraps a database: the first call that sends `statement` lands, and the worker dies right
    after it, before any other call it would make."""

    def __init__(self, inner: Database, statement: str):
        super().__init__(inner)
        self.statement = statement
        self.dead = False

    async def _call(self, sqls, send):
        if self.dead:
            raise Killed("the worker was killed")
        result = await send()
        self.dead = self.statement in sqls
        return result
