"""`clock.now` inside a run: fixed to the tick's time for the whole run.

    from tickwork import clock

    async def queue_chore_census():
        overdue = await todos_due_before(clock.now)

The value lives in a context variable, so runs side by side each see their own.
"""

from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime

from .times import to_datetime

_now_ms: ContextVar[int | None] = ContextVar("tickwork_now_ms", default=None)


class NotInRun(RuntimeError):
    pass


class Clock:
    @property
    def now_ms(self) -> int:
        value = _now_ms.get()
        if value is None:
            raise NotInRun(
                "clock.now is set only inside a run; in a test, wrap the call in clock.fixed(ms)"
            )
        return value

    @property
    def now(self) -> datetime:
        """The run's time as an aware UTC datetime."""
        return to_datetime(self.now_ms)

    @contextmanager
    def fixed(self, ms: int):
        token = _now_ms.set(ms)
        try:
            yield self
        finally:
            _now_ms.reset(token)


clock = Clock()
