"""The contract every database adapter meets: D1's semantics, whoever provides them."""

import functools
from abc import ABC, abstractmethod
from contextlib import nullcontext
from contextvars import ContextVar
from typing import Any, Awaitable, Callable, ContextManager, ParamSpec, Sequence, TypeVar

Params = Sequence[Any]
Statement = tuple[str, Params]
Row = dict[str, Any]

# The calls D1 takes from one Worker invocation (a statement alone, or a batch), on the Paid plan
# and on the Free one, and what it answers past them.
PAID_QUERIES = 1000
FREE_QUERIES = 50
PAST_THE_CAP = "Too many API requests by single worker invocation."


def queries_allowed(statements_per_tick: int | None) -> int:
    """The calls D1 allows an invocation of an app whose ticks make at most `statements_per_tick`
    (`d1_statements_per_tick`): a cap within the Free plan's 50 says the app is on it."""
    return FREE_QUERIES if statements_per_tick is not None and statements_per_tick <= FREE_QUERIES else PAID_QUERIES


def past_the_cap(error: BaseException) -> bool:
    """Whether D1 refused a call for passing the invocation's calls."""
    return PAST_THE_CAP.lower().rstrip(".") in str(error).lower()


class Database(ABC):
    """SQLite-dialect SQL with `?N` parameters, as D1 runs it.

    Every statement commits on its own; there is no BEGIN or COMMIT. Python `None` binds as NULL,
    an int as a JS number, which D1 binds as REAL (`?1 || ''` is '5.0'; a column of INTEGER
    affinity keeps 5); an int of magnitude 2^53 - 1 or more is a BigInt, which D1 refuses
    (D1_TYPE_ERROR). A number comes back an int when whole and within 2^53 - 1, else a float.
    """

    @abstractmethod
    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Run one statement and return its rows (a `RETURNING` clause's rows too), as dicts."""

    @abstractmethod
    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        """Run the statements in order as one transaction: one failure rolls back all of them.

        Returns the rows of each statement, in order.
        """

    def invocation(self, statements_per_tick: int | None = None) -> ContextManager:
        """The calls made inside it are one Worker invocation's, which D1 refuses past
        `queries_allowed(statements_per_tick)`. On the Worker a binding is one invocation's and
        D1 counts; an adapter that outlives invocations counts them itself."""
        return nullcontext()

    statements_run: int = 0  # how many statements this adapter has sent, batches counted per statement
    round_trips: int = 0  # how many calls (a statement alone, or a batch) it has made
    rows_written: int = 0  # rows the database says its statements wrote (D1 bills these)


def one_invocation(setting: Callable[..., int | None] = lambda *args, **kwargs: None):
    """For a handler whose first argument is its Database: what it makes is one invocation's
    (joined to the one under way, for a tick of a cron invocation). `setting` gives, from the
    handler's other arguments, the app's `d1_statements_per_tick`, which says its plan."""

    def wrap(handler):
        @functools.wraps(handler)
        async def within(db: Database, *args, **kwargs):
            with db.invocation(setting(*args, **kwargs)):
                return await handler(db, *args, **kwargs)

        return within

    return wrap


# What the runtime is doing when it calls the database: the schema check, a step of the tick, the
# outbox, an item's hand-over or cancel. Tests pick the calls D1 fails by it (tests/faults.py), so
# a fault stays on its operation when statements merge or a step moves.
OPERATIONS = (
    "schema", "probe", "reconcile", "gap", "expire", "rebase", "claim", "read_back", "run", "ends",
    "backfill", "send", "sweep", "housekeeping", "consume", "hand_over", "cancel", "replace", "workflows",
)
P = ParamSpec("P")
R = TypeVar("R")
OPERATION: ContextVar[str | None] = ContextVar("tickwork_operation", default=None)


class operation:
    """The calls made inside it (`with operation("claim"):`, or an async function it decorates)
    are that operation's."""

    def __init__(self, name: str):
        if name not in OPERATIONS:
            raise ValueError(f"no operation is named {name!r}")
        self.name = name
        self.tokens: list[Any] = []

    def __enter__(self) -> None:
        self.tokens.append(OPERATION.set(self.name))

    def __exit__(self, *exc: object) -> None:
        OPERATION.reset(self.tokens.pop())

    def __call__(self, function: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(function)
        async def within(*args: P.args, **kwargs: P.kwargs) -> R:
            with operation(self.name):
                return await function(*args, **kwargs)

        return within
