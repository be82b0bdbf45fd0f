"""The contract every database adapter meets: D1's semantics, whoever provides them."""

from abc import ABC, abstractmethod
from typing import Any, Sequence

Params = Sequence[Any]
Statement = tuple[str, Params]
Row = dict[str, Any]


class Database(ABC):
    """SQLite-dialect SQL with `?N` parameters, as D1 runs it.

    Every statement commits on its own; there is no BEGIN or COMMIT. Python `None` binds as NULL.
    """

    @abstractmethod
    async def all(self, sql: str, params: Params = ()) -> list[Row]:
        """Run one statement and return its rows (a `RETURNING` clause's rows too), as dicts."""

    @abstractmethod
    async def batch(self, statements: Sequence[Statement]) -> list[list[Row]]:
        """Run the statements in order as one transaction: one failure rolls back all of them.

        Returns the rows of each statement, in order.
        """

    statements_run: int = 0  # how many statements this adapter has sent, batches counted per statement
    round_trips: int = 0  # how many calls (a statement alone, or a batch) it has made
    rows_written: int = 0  # rows the database says its statements wrote (D1 bills these)
