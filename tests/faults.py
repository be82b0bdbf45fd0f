"""D1 faults, one call at a time, around the real SQLite store: a call fails before it runs, or
after it committed (a timeout whose write landed). Nothing else about the store is changed.

A fault picks its call by the operation the runtime was doing when it made it
(`tickwork.database.OPERATIONS`) and the occurrence of that operation's calls in the tick:
`at("claim")`, `at("ends", 2)`, `each("ends")`. A statement merged into another batch, or a step
moved, leaves the fault on its operation. `first_with`/`every_call_with` pick by a statement's
text, for the few tests about that one statement."""

from dataclasses import dataclass
from typing import Callable, Sequence

from tickwork.database import OPERATION, OPERATIONS, Database, Params, Row, Statement


class D1Error(Exception):
    """What the binding raises: D1_ERROR, a network error, a timeout."""


@dataclass(frozen=True)
class Call:
    number: int  # from 1 in the wrapper's life, a batch being one call
    sqls: Sequence[str]
    operation: str | None  # None: made outside any operation the runtime names
    occurrence: int  # from 1, among the calls of `operation`


Picks = Callable[[Call], bool]


class Wrapped(Database):
    """A database around the real one: each call, with its statements, goes through `_call`,
    which knows its operation and occurrence; `made` lists them in order."""

    def __init__(self, inner: Database):
        self.inner = inner
        self.made: list[Call] = []

    @property
    def statements_run(self) -> int:
        return self.inner.statements_run

    @property
    def round_trips(self) -> int:
        return self.inner.round_trips

    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        return await self._call(self._made([sql]), lambda: self.inner.all(sql, params))

    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        return await self._call(self._made([sql for sql, _ in statements]), lambda: self.inner.batch(statements))

    def _made(self, sqls: Sequence[str]) -> Call:
        operation = OPERATION.get()
        occurrence = 1 + sum(1 for call in self.made if call.operation == operation)
        call = Call(len(self.made) + 1, sqls, operation, occurrence)
        self.made.append(call)
        return call

    def operations(self) -> list[tuple[str | None, int]]:
        """(operation, occurrence) of each call made, in order: a fault-free run's, for a matrix."""
        return [(call.operation, call.occurrence) for call in self.made]

    async def _call(self, call: Call, send):
        return await send()


class Faulty(Wrapped):
    """Wraps a database. The calls that `fails` picks raise; with `landed`, only after they
    committed."""

    def __init__(self, inner: Database, fails: Picks, landed=False, says: str = "D1_ERROR"):
        super().__init__(inner)
        self.fails = fails
        self.landed = landed
        self.says = says
        self.failed: list[Call] = []

    async def _call(self, call: Call, send):
        failing = self.fails(call)
        if failing:
            self.failed.append(call)
            if not self.landed:
                raise D1Error(f"{self.says}: call {call.number} ({call.operation}) failed before it ran")
        result = await send()
        if failing:
            raise D1Error(f"{self.says}: call {call.number} ({call.operation}) timed out after it committed")
        return result


def _named(operation: str) -> str:
    assert operation in OPERATIONS, f"no operation is named {operation!r}"
    return operation


def at(operation: str, occurrence: int = 1) -> Picks:
    """The `occurrence`-th call of `operation` (from 1)."""
    operation = _named(operation)
    return lambda call: call.operation == operation and call.occurrence == occurrence


def each(operation: str) -> Picks:
    """Every call of `operation`."""
    operation = _named(operation)
    return lambda call: call.operation == operation


def nothing(call: Call) -> bool:
    return False


def first_with(statement: str) -> Picks:
    """The first call that sends `statement` (a constant of the store), once."""
    seen = []

    def fails(call):
        if statement in call.sqls and not seen:
            seen.append(call)
            return True
        return False

    return fails


def every_call_with(statement: str) -> Picks:
    return lambda call: statement in call.sqls


class Meanwhile(Wrapped):
    """Wraps a database: before the first call `before` picks, `meanwhile()` is awaited, so that
    another tick's work lands between what a tick read and what it writes, in that order every
    time."""

    def __init__(self, inner: Database, before: Picks, meanwhile):
        super().__init__(inner)
        self.before = before
        self.meanwhile = meanwhile
        self.happened = False

    async def _call(self, call: Call, send):
        if not self.happened and self.before(call):
            self.happened = True
            await self.meanwhile()
        return await send()


class Killed(BaseException):
    """The worker is gone: nothing of the tick runs on (no `except Exception` catches it)."""


class KilledAfter(Wrapped):
    """Wraps a database: the first call `after` picks lands, and the worker dies right after it,
    before any other call it would make."""

    def __init__(self, inner: Database, after: Picks):
        super().__init__(inner)
        self.after = after
        self.dead = False

    async def _call(self, call: Call, send):
        if self.dead:
            raise Killed("the worker was killed")
        result = await send()
        self.dead = self.after(call)
        return result
