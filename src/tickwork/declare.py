"""Declaring schedules in Python: the same declarations `.jadpo` files make.

    from tickwork import calendar, pulse, schedule

    @schedule(every="1h")
    async def tidy_up(): ...

    @calendar("0 9 * * 1", zone="Europe/Berlin")
    async def weekly_report(): ...

    @pulse(cycle=86400, intervals=24)
    async def sweep(): ...

    purge("todos", column="created_at", format="epoch_ms", after="30d")

are `schedule tidy_up { every: 1h  run: tidy_up() }` and so on, in the function's domain; the
purge, a call at the top level of a domain's module, is
`purge todos { table: todos  column: created_at  format: epoch_ms  after: 30d }`.
Decorators stack: one action may have several entries, each named (`name=`) apart.
The decorators only note the declaration on the function, and `purge` in MADE, its arguments as
given; `make build` validates them with the `.jadpo` ones, so a bad argument is a problem with
its code and the declaration's file:line, not an error on import.
"""

import sys

from .records import Record

DECLARATIONS = "__tickwork_declarations__"
CONSUMES = "__tickwork_consumes__"


class Declared(Record):
    __slots__ = ("kind", "name", "items", "file", "line", "action", "module")

    def __init__(self, kind: str, name: object, items: dict[str, object], file: str, line: int,
                 action: str = "", module: str = ""):
        self.kind, self.items, self.file, self.line = kind, items, file, line
        self.name = name  # a str when the app is right
        self.action = action  # the decorated function's module and qualified name
        self.module = module  # a purge's: the module whose code called `purge`


# Every declaration made since the build last emptied it: the build finds declarations on the
# functions at the top level of a domain's modules, and reports any other this holds (a method,
# a function of no domain) rather than drop it.
MADE: list[Declared] = []


def _declare(kind: str, name: str | None, items: dict[str, object]):
    caller = sys._getframe(2)
    file, line = caller.f_code.co_filename, caller.f_lineno

    def declare(action):
        label = getattr(action, "__name__", None)
        given = {key: value for key, value in items.items() if value is not None}
        if isinstance(given.get("concurrency"), tuple | list):  # `concurrency=("api:acme", 4)`, as items take it
            given["concurrency"] = " ".join(map(str, given["concurrency"]))
        given["run"] = f"{label}()"
        qualname = getattr(action, "__qualname__", None)
        where = f"{getattr(action, '__module__', None)}.{qualname}" if qualname else repr(action)[:60]
        declared = Declared(kind, label if name is None else name, given, file, line, where)
        try:
            action.__dict__.setdefault(DECLARATIONS, []).append(declared)
        except AttributeError:  # not a function (a partial, a number): the build reports it, from MADE
            pass
        MADE.append(declared)
        return action

    return declare


def schedule(*, every: str, name: str | None = None, retry: str | None = None, limit: str | None = None,
             starts: str | None = None, overdue: str | int | None = None, overlap: str | None = None,
             jitter: str | None = None, concurrency: int | str | tuple[str, int] | None = None):
    """`retry="3 after 1m"`: a failed run is tried again three times more for the same due time,
    1m, 2m and 4m after each failure (in full: "8 after 1m up to 30m jitter 30s except
    invalid_input", docs/how-to/policies/retries.md); `limit="2m"`: the run is stopped there (at
    most 15m); `starts="2027-01-04T09:00:00Z"`: no call before it; `overdue="5m"`: a run later than
    that after its grid time is skipped `overdue`; `overlap="buffer"`: a due time the previous run
    still holds waits for its end instead of being skipped, `overlap="allow"`: it runs beside it
    (docs/how-to/policies/overlap.md);
    `jitter="5m"`: each due time runs up to 5m after it, the same moment for every tick
    (docs/how-to/policies/jitter.md); `concurrency=4`: at most 4 runs at once of the action across its
    schedules, `concurrency=("api:acme", 4)` of a key shared with every schedule naming it
    (docs/how-to/policies/concurrency.md). The calendar and pulse decorators take them too."""
    return _declare("schedule", name, {"every": every, "overdue": overdue, "retry": retry, "limit": limit,
                                       "starts": starts, "overlap": overlap, "jitter": jitter,
                                       "concurrency": concurrency})


def calendar(
    cron: str,
    *,
    zone: str | None = None,
    overdue: str | int | None = None,
    nonexistent: str | None = None,
    repeated: str | None = None,
    name: str | None = None,
    retry: str | None = None,
    limit: str | None = None,
    starts: str | None = None,
    overlap: str | None = None,
    skip: str | list[str] | None = None,
    jitter: str | None = None,
    concurrency: int | str | tuple[str, int] | None = None,
):
    """`overdue` is seconds, or a duration such as "1h"; `skip`, dates (YYYY-MM-DD) and names of
    the lists of `[tool.tickwork.dates]`, mixed: `skip=["holidays", "2026-07-04"]` or one text."""
    items: dict[str, object] = {"cron": cron, "zone": zone, "overdue": overdue}
    items |= {"nonexistent": nonexistent, "repeated": repeated, "retry": retry, "limit": limit, "starts": starts,
              "jitter": jitter}
    items["skip"] = (", ".join(map(str, skip)) or None) if isinstance(skip, (list, tuple)) else skip
    return _declare("calendar", name, items | {"overlap": overlap, "concurrency": concurrency})


def pulse(*, cycle: str | int, intervals: int | None = None, name: str | None = None, retry: str | None = None,
          limit: str | None = None, starts: str | None = None, overdue: str | int | None = None,
          overlap: str | None = None, concurrency: int | str | tuple[str, int] | None = None):
    """`cycle` is seconds counted from the Unix epoch, or a duration such as "5m"; `overdue` as a
    calendar's, counted from the start of the share called."""
    items: dict[str, object] = {"cycle": cycle, "intervals": intervals, "overdue": overdue, "retry": retry,
                                "limit": limit, "starts": starts, "overlap": overlap, "concurrency": concurrency}
    return _declare("pulse", name, items)


def purge(table: str, *, column: str, format: str, after: str) -> None:
    """Rows of the app's own `table` go once `column`, the row's time, is `after` (a duration such
    as "30d", from a minute to a century, or "vars.NAME": the Worker's var NAME, read at each run)
    before the tick. `format` is how the column holds the time: "epoch_ms", "epoch_s" or "iso"
    (ISO-8601 text). The build checks the table and column against the app's migrations and gives
    the purge the hourly schedule `<table>.purge`."""
    caller = sys._getframe(1)
    items = {"table": table, "column": column, "format": format, "after": after}
    given: dict[str, object] = {key: value for key, value in items.items() if value is not None}
    module = caller.f_globals.get("__name__", "")
    MADE.append(Declared("purge", table, given, caller.f_code.co_filename, caller.f_lineno, module=module))


def consumer(queue: str):
    """Declares the action the consumer of `queue`, a queue of wrangler.toml's `[[queues.consumers]]`."""
    caller = sys._getframe(1)

    def declare(action):
        setattr(action, CONSUMES, (queue, caller.f_code.co_filename, caller.f_lineno))
        return action

    if callable(queue):  # `@consumer` without its queue: noted as it is, for the build to refuse
        return declare(queue)
    return declare
