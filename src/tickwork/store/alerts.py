"""Alerts, kept in the outbox as events to the app's alerts queue: a schedule starts failing, it
recovers, ticks had stopped.

Whether an end changes a schedule's state is decided by one conditional update in the end's own
batch, which marks the row with the run whose end changed it; only an end so marked writes its
alert. Of ticks racing, or a batch written again after an error, one alert is kept.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..database import Row, Statement
from ..model import Code, Outcome
from .app_row import IS_FAILING, LATEST_TELLING, RETRY_PENDING
from .claims import CLAIMS
from .leases import LAPSED, LAPSED_DETAIL
from .outbox import new_deliveries
from .sql import chunks, json_rows

FAILING = "tickwork.schedule_failing"
RECOVERED = "tickwork.schedule_recovered"
TICKS_STOPPED = "tickwork.ticks_stopped"


def iso_sql(ms: str) -> str:
    """An epoch-ms expression as tickwork's ISO text (times.iso)."""
    return f"strftime('%Y-%m-%dT%H:%M:%fZ', {ms} / 1000.0, 'unixepoch')"


def with_run_url(body: str, run_page: str, run: str) -> str:
    """An alert's body with `run_url`, the console's page of `run`, where the app sets the console's
    address (`run_page`, the page's address up to the run's id, NULL where none is set): a NULL
    member of json_patch's patch is left out, so the body has no such field then."""
    return f"json_patch({body}, json_object('run_url', {run_page} || {run}))"


@dataclass(frozen=True)
class AlertEnd:
    """A run's end as its alert would tell it: the alert's event and delivery ids (derived from the
    run's), the queue, the sender and lease of its delivery, and the retry the end scheduled."""

    name: str
    run: str
    outcome: str
    code: str | None
    detail: str | None
    ended: int
    trace: str | None
    event: str
    delivery: str
    queue: str
    sender: str
    lease_until: int
    retry: int | None
    run_page: str | None = None  # the console's page of a run, up to its id, where the app sets its address

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "name", "run", "outcome", "code", "detail", "ended", "trace", "event", "delivery", "queue", "sender",
        "lease_until", "retry", "run_page")

    def row(self) -> list[object]:
        """The end as ALERT_ENDS reads it, column by column (COLUMNS)."""
        return [getattr(self, column) for column in self.COLUMNS]


ALERT_ENDS = json_rows(*AlertEnd.COLUMNS)

# After the ends are recorded, in their batch: a schedule whose end landed (its record says so)
# and is of the other outcome than the row's is marked with that run, where the one definition of
# failing (app_row.IS_FAILING) then agrees with the end. Failing begins at the end of the
# first failed run whose due time has no attempt left: a failed attempt with a retry to come
# changes nothing, and a retry that succeeds announces nothing; each later failure finds the row
# failing already (RETRY_PENDING, read after the retries are scheduled, in the same batch). So a
# recovery follows only an announced failure. A backfilled run (an old occurrence an operator
# asked for) changes nothing: alerts follow the schedule's own runs, as the health route does.
MARK_TURNS = f"""
{ALERT_ENDS}
UPDATE tickwork_schedules AS s
SET failing_since = CASE WHEN j.outcome = '{Outcome.FAILED}' THEN j.ended END,
    alert_since = CASE WHEN j.outcome = '{Outcome.FAILED}' THEN j.ended ELSE s.failing_since END,
    alert_run = j.run
FROM j
WHERE s.name = j.name AND (j.outcome = '{Outcome.FAILED}') = (s.failing_since IS NULL)
  AND (j.outcome <> '{Outcome.FAILED}' OR j.retry IS NULL OR NOT {RETRY_PENDING})
  AND {IS_FAILING} = (j.outcome = '{Outcome.FAILED}')
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r
              WHERE r.id = j.run AND r.outcome = j.outcome AND r.ended_at = j.ended AND r.backfill IS NULL)
"""

# The alert of each run the update marked. Its ids derive from the run's: a batch written again
# keeps no second one.
_TURN_BODY = with_run_url(f"""json_object('schedule', j.name, 'outcome', j.outcome, 'code', j.code, 'detail', j.detail,
                   'since', {iso_sql('s.alert_since')}, 'at', {iso_sql('j.ended')},
                   'run', j.run, 'trace', j.trace)""", "j.run_page", "j.run")
RECORD_TURNS = f"""
{ALERT_ENDS}
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT j.event, CASE WHEN j.outcome = '{Outcome.FAILED}' THEN '{FAILING}' ELSE '{RECOVERED}' END,
       {_TURN_BODY},
       NULL, j.ended, j.trace
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.alert_run = j.run
WHERE true
ON CONFLICT (id) DO NOTHING
"""

# The deliveries of the alerts just kept, leased to the tick that sends them next; those it
# returns are the ones to send.
DELIVERY_COLUMNS = """
RETURNING id, queue, (SELECT name FROM tickwork_events WHERE id = event) AS name,
  (SELECT body FROM tickwork_events WHERE id = event) AS body,
  (SELECT trace FROM tickwork_events WHERE id = event) AS trace
"""

RECORD_TURN_DELIVERIES = f"""
{ALERT_ENDS}
{new_deliveries("j.delivery", "j.event", "j.queue", "j.sender", "j.lease_until", "j.ended")}
FROM j JOIN tickwork_events AS e ON e.id = j.event
WHERE true
ON CONFLICT (id) DO NOTHING
{DELIVERY_COLUMNS}
"""

# A gap, kept with its alert's id: only the tick whose insert kept the gap writes the alert.
# ?1 the tick that found it, ?2 the tick before, ?3 the wall time, ?4 the event, ?5 the delivery,
# ?6 the queue, ?7 the sender, ?8 the delivery's lease.
RECORD_ALERTED_GAP = """
INSERT INTO tickwork_gaps (to_tick, from_tick, recorded_at, alert) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (to_tick) DO NOTHING
"""

RECORD_GAP_ALERT = f"""
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT ?4, '{TICKS_STOPPED}',
       json_object('from', {iso_sql('g.from_tick')}, 'to', {iso_sql('g.to_tick')},
                   'gap_s', CAST((g.to_tick - g.from_tick) / 1000 AS INTEGER)),
       NULL, ?3, NULL
FROM tickwork_gaps AS g WHERE g.to_tick = ?1 AND g.alert = ?4
ON CONFLICT (id) DO NOTHING
"""

RECORD_GAP_DELIVERY = f"""
{new_deliveries("?5", "e.id", "?6", "?7", "?8", "?3")} FROM tickwork_events AS e WHERE e.id = ?4
ON CONFLICT (id) DO NOTHING
{DELIVERY_COLUMNS}
"""

# In the batch that ends the runs whose leases lapsed (leases.LAPSED, ?1 and ?2, ?1 the
# clock), after their retries are scheduled and before the runs are ended (while their records are
# `running` and the rows hold their leases): such a run with no attempt left (a run by hand has
# none, a retry pending or not) starts its schedule failing, as a failed end would, at ?1, the
# end its record is given. ?3 the queue, ?4 the sender,
# ?5 the deliveries' lease. The ids derive from the run's: a batch written again keeps no second
# one; of ticks racing, the first batch ends the runs and the others find none. The row is marked
# with the alert's id, not the run's: should the run's end come after all, it finds no mark of its own.
# Each of LAPSED's runs holds its claim (the row's lease, or its record's own under `overlap: allow`),
# so the alert is named for the run, not for the row's lease, which a later run may hold.
MARKED_LAPSED = "s.alert_run = 'lapsed-' || x.run AND s.failing_since = ?1"

MARK_LAPSED = f"""
WITH {LAPSED}
UPDATE tickwork_schedules AS s SET failing_since = ?1, alert_since = ?1, alert_run = 'lapsed-' || x.run
FROM lapsed AS x
WHERE s.name = x.name AND s.failing_since IS NULL
  AND EXISTS (SELECT 1 FROM tickwork_runs AS r WHERE r.id = x.run AND r.backfill IS NULL
              AND NOT ({RETRY_PENDING} AND r.by_hand IS NULL))
"""

# ?3: the console's run page, up to the run's id, or NULL.
_LAPSED_BODY = with_run_url(f"""json_object('schedule', s.name, 'outcome', '{Outcome.FAILED}',
                   'code', '{Code.LEASE_EXPIRED}', 'detail', {LAPSED_DETAIL},
                   'since', {iso_sql('?1')}, 'at', {iso_sql('?1')},
                   'run', r.id, 'trace', r.trace)""", "?3", "r.id")
RECORD_LAPSED = f"""
WITH {LAPSED}
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT s.alert_run, '{FAILING}',
       {_LAPSED_BODY},
       NULL, ?1, r.trace
FROM lapsed AS x JOIN tickwork_schedules AS s ON s.name = x.name JOIN tickwork_runs AS r ON r.id = x.run
WHERE {MARKED_LAPSED}
ON CONFLICT (id) DO NOTHING
"""

RECORD_LAPSED_DELIVERIES = f"""
WITH {LAPSED}
{new_deliveries("'lapsed-delivery-' || x.run", "e.id", "?3", "?4", "?5", "?1")}
FROM lapsed AS x JOIN tickwork_schedules AS s ON s.name = x.name JOIN tickwork_events AS e ON e.id = s.alert_run
WHERE {MARKED_LAPSED}
ON CONFLICT (id) DO NOTHING
{DELIVERY_COLUMNS}
"""

# In the claim batch, after a chunk of skips: a skip that dropped a pending retry (the next due
# time superseded it, or the schedule was paused) used up its due time's attempts, so the schedule
# may be failing now by the one definition (IS_FAILING); where it is and the row was not, the row is
# marked with the skip and keeps the alert of the failed attempt that tells. Only the skip the
# batch won marks (the row's `skip_run` is its own): of ticks racing, one. ?2 the tick; a retry
# superseded only because the ticks stopped past it (the tick came more than ?6 after the retry
# was due) is not announced: the gap's alert is. ?3 the queue, ?4 the sender, ?5 the deliveries' lease.
SKIP_ALERT = "'skipped-' || j.run"

MARK_SKIP_TURNS = f"""
{CLAIMS}
UPDATE tickwork_schedules AS s
SET failing_since = (SELECT ended_at FROM tickwork_runs WHERE id = {LATEST_TELLING}),
    alert_since = (SELECT ended_at FROM tickwork_runs WHERE id = {LATEST_TELLING}), alert_run = {SKIP_ALERT}
FROM j
WHERE s.name = j.name AND s.skip_run = j.run AND j.retrying IS NOT NULL AND s.failing_since IS NULL
  AND (j.reason <> '{Code.SUPERSEDED}' OR ?2 - j.due <= ?6) AND {IS_FAILING}
"""

# ?3: the console's run page, up to the run's id, or NULL.
_SKIP_BODY = with_run_url(f"""json_object('schedule', s.name, 'outcome', f.outcome, 'code', f.code, 'detail', f.detail,
                   'since', {iso_sql('s.alert_since')}, 'at', {iso_sql('s.alert_since')},
                   'run', f.id, 'trace', f.trace)""", "?3", "f.id")
RECORD_SKIP_TURNS = f"""
{CLAIMS}
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT s.alert_run, '{FAILING}',
       {_SKIP_BODY},
       NULL, ?2, f.trace
FROM j JOIN tickwork_schedules AS s ON s.name = j.name AND s.alert_run = {SKIP_ALERT}
  JOIN tickwork_runs AS f ON f.id = {LATEST_TELLING}
WHERE true
ON CONFLICT (id) DO NOTHING
"""

RECORD_SKIP_DELIVERIES = f"""
{CLAIMS}
{new_deliveries("'skipped-delivery-' || j.run", "e.id", "?3", "?4", "?5", "?2")}
FROM j JOIN tickwork_events AS e ON e.id = {SKIP_ALERT}
WHERE true
ON CONFLICT (id) DO NOTHING
{DELIVERY_COLUMNS}
"""

# Statements an end's batch takes for its alerts, per chunk of ends; a gap with its alert, and
# the statement that records what its send came to.
TURNS = 3
GAP_WITH_ALERT = 3 + 1
LAPSED_ALERTS = 3  # beside the lapsed leases' own, and the statement recording their sends


def turning(ends: Sequence[AlertEnd]) -> list[Statement]:
    """The statements that mark the schedules whose ends change their state and keep their
    alerts, after the ends' own statements."""
    rows = [end.row() for end in ends]
    statements: list[Statement] = []
    for chunk in map(json.dumps, chunks(rows)):  # as the ends' own statements take them
        statements += [(MARK_TURNS, (chunk,)), (RECORD_TURNS, (chunk,)), (RECORD_TURN_DELIVERIES, (chunk,))]
    return statements


def gap_alerted(tick: int, previous: int, now: int, event: str, delivery: str, queue: str, sender: str,
                lease_until: int) -> list[Statement]:
    """The gap and its alert, for one batch."""
    params = (tick, previous, now, event, delivery, queue, sender, lease_until)
    return [(RECORD_ALERTED_GAP, params[:4]), (RECORD_GAP_ALERT, params[:4]), (RECORD_GAP_DELIVERY, params)]


def lapsed(runs: tuple[int, int], queue: str, sender: str, lease_until: int,
           run_page: str | None = None) -> list[Statement]:
    """The statements announcing the schedules that runs whose leases lapsed start failing, for
    the batch that ends those runs (`runs`: LAPSED's parameters), after it schedules their retries."""
    return [(MARK_LAPSED, runs), (RECORD_LAPSED, (*runs, run_page)),
            (RECORD_LAPSED_DELIVERIES, (*runs, queue, sender, lease_until))]


def skips_turning(chunk: str, tick: int, queue: str, sender: str, lease_until: int,
                  stopped_after: int, run_page: str | None = None) -> list[Statement]:
    """The statements announcing the schedules a chunk of skips (CLAIMS rows, JSON) starts
    failing, for the claim batch, after the skips' own."""
    params = (chunk, tick, queue, sender, lease_until, stopped_after)
    return [(MARK_SKIP_TURNS, params), (RECORD_SKIP_TURNS, (chunk, tick, run_page)),
            (RECORD_SKIP_DELIVERIES, params[:5])]


def returned(statements: list[Statement], results: list[list[Row]]) -> list[Row]:
    """The alert deliveries a batch kept, from what its delivery statements returned."""
    kinds = (RECORD_TURN_DELIVERIES, RECORD_GAP_DELIVERY, RECORD_LAPSED_DELIVERIES, RECORD_SKIP_DELIVERIES)
    return [row for (sql, _), rows in zip(statements, results, strict=False) if sql in kinds for row in rows]
