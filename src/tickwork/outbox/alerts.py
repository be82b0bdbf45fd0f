"""Failures announced: with `[tool.tickwork] alerts = "BINDING"`, tickwork emits to that queue,
through the outbox, one event when a schedule starts failing, one when it recovers, and one when
a tick finds that ticks had stopped. A consumer of the app's own sends the email or the chat
message. A schedule failing every minute makes one event, not one a run; with retries, a due
time fails once its attempts are used up, so a failure a retry mends makes none.

Each message is the outbox's envelope, `{"tickwork": 1, "delivery", "event", "body", "trace"}`:

- `tickwork.schedule_failing`: `{"schedule", "outcome": "failed", "code", "detail", "since",
  "at", "run", "trace"}`, `since` and `at` the end of the failed run that used up its due time's
  attempts (ISO, UTC), or, for a
  run whose worker was lost (`lease_expired`), the tick that found its lease lapsed;
- `tickwork.schedule_recovered`: the same of the succeeded run, `since` the end of the first
  failed run of those it ends, `code` and `detail` null;
- `tickwork.ticks_stopped`: `{"from", "to", "gap_s"}`, the app's tick before the gap and the
  tick that found it.

Where the app sets its console's address (`[tool.tickwork] console_url`), a failing or recovered
schedule's alert carries `run_url` too, the console's page of its run; without it, no such field.
"""

from dataclasses import dataclass

from ..store.alerts import AlertEnd
from ..store.alerts import GAP_WITH_ALERT, LAPSED_ALERTS, TURNS, gap_alerted, lapsed, returned, skips_turning, turning
from ..store.outbox import Delivery
from ..store.sql import digest
from . import SEND_WINDOW

__all__ = ["Alerts", "GAP_WITH_ALERT", "LAPSED_ALERTS", "TURNS", "deliveries"]


@dataclass(frozen=True)
class Alerts:
    """Where the alerts go: the producer binding `queue`; `run_page`, the console's page of a
    run up to its id (`https://ops.example.com/ops/run?id=`), where the app sets its address."""

    queue: str
    run_page: str | None = None

    def turning(self, ends: list, traces: dict, sender: str) -> list:
        """Statements for an end's batch, after the ends: each end that turns its schedule
        (succeeded to failed once its due time's attempts are used up, failed to succeeded)
        keeps one alert. `traces` by run."""
        rows = [AlertEnd(name=e.name, run=e.run, outcome=e.outcome, code=e.code, detail=e.detail, ended=e.ended,
                         trace=traces.get(e.run), event=event, delivery=delivery, queue=self.queue, sender=sender,
                         lease_until=e.ended + SEND_WINDOW, retry=e.retry, run_page=self.run_page)
                for e in ends for event, delivery in [_ids(e.run)]]
        return turning(rows)

    def gap(self, tick: int, previous: int, now: int, sender: str) -> list:
        """The gap's statements with its alert, for one batch."""
        event, delivery = _ids(f"gap {tick}")
        return gap_alerted(tick, previous, now, event, delivery, self.queue, sender, now + SEND_WINDOW)

    def skipping(self, tick: int, now: int, sender: str, stopped_after: int):
        """For the claim batch: the statements, for a chunk of skips (JSON), keeping the alerts of
        the schedules whose skipped retries start them failing (`stopped_after`: a retry superseded
        this long after it was due, the ticks having stopped, is not announced)."""
        return lambda chunk: skips_turning(chunk, tick, self.queue, sender, now + SEND_WINDOW, stopped_after,
                                           self.run_page)

    def lapsed(self, runs: tuple, now: int, sender: str) -> list:
        """Statements for the batch that ends the runs whose leases lapsed (`runs`: the store's
        LAPSED parameters, the clock and the window's first tick): each with no attempt left that starts its schedule
        failing keeps one alert, `lease_expired`."""
        return lapsed(runs, self.queue, sender, now + SEND_WINDOW, self.run_page)


def deliveries(statements: list, results: list) -> list[Delivery]:
    """The alert deliveries a batch kept, to send."""
    return sendable(returned(statements, results))


def sendable(rows: list) -> list[Delivery]:
    """The alert deliveries of the rows their statements returned."""
    return [Delivery(r["id"], r["queue"], r["name"], r["body"], trace=r["trace"]) for r in rows]


def _ids(key: str) -> tuple[str, str]:
    """An alert's event and delivery ids, the same however often its batch is written."""
    return digest(f"event {key}"), digest(f"delivery {key}")
