"""What the tick's steps share, as plain data: where they read and write, who the tick is to the
outbox, what the first read answered, and the runs reported so far. No behaviour: each step is a
function of a TickState and the tick's Budget."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from ..outbox.alerts import Alerts
from .declared import DeclaredSet
from ..outbox import Outbox
from ..store.facade import ScheduleStore
from ..kinds import Owing, Timing
from .reports import RunReport

if TYPE_CHECKING:
    from .wakes import Wakes

Sleep = Callable[[float], Awaitable[Any]]
# a handed-over row's timing, retry, limit, times, overlap, jitter and workflow, from its JSON
Handed = tuple[Timing, Any, int | None, int | None, str | None, int | None, str | None]


@dataclass
class TickState:
    store: ScheduleStore
    declared: DeclaredSet
    now: int  # the tick's time
    outbox: Outbox | None
    alerts: Alerts | None  # the app's alerts, where it binds a producer for them and an outbox
    sender: str  # who claims the deliveries this tick sends
    flush: int  # the statements a batch of ends costs
    sleep: Sleep  # waits between attempts at a write D1 refused
    retention: int  # how long run records are kept
    settings: dict[str, Any]
    owing: Owing
    traces: dict[str, str | None] = field(default_factory=dict)  # each run's trace, for its alert
    timings: dict[str, Handed] = field(default_factory=dict)  # handed-over rows' timings, by their JSON
    # What the first read answered:
    sweep_at: int | None = None  # when a delivery is next left to send
    lapse_from: int = 0  # the first tick of the window of runs whose leases may have lapsed
    housekeeping_due: bool = False
    backfill_pending: bool = False
    workflows_due: bool = False  # a Workflow run is open and due to be asked its status (tick.workflows)
    reports: list[RunReport] = field(default_factory=list)  # the runs and skips so far
    wakes: Wakes | None = None  # the app's wake queue, where it binds one (wakes.py)
    wake_at: tuple[int, ...] = ()  # what the first read found running before the next tick
    handed_wakes: list[int] = field(default_factory=list)  # for `once` items its runs handed over (waking_items.py)
