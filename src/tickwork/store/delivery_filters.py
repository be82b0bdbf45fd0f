"""The console's deliveries, filtered and paged by keyset: oldest event first after the cursor (the
last row of the page before: its event's emission and its id).

Those an operator may act on (pending, outcome unknown, failed) are read through the indexes that
hold only them (operator's OPEN_DELIVERIES), so a page of them costs the open ones, never those
delivered. Every one kept, or those of a state set aside or delivered, is read along the events'
index by emission from the cursor, a window of SEARCHED events at most a page where a filter
passes few, and the page says how far it looked.
"""

import json
from dataclasses import dataclass

from ..database import Database, Row
from ..times import NEVER
from .operator import EVERY_ROW, OPEN_DELIVERIES, OPEN_ROWS

SEARCHED = 2_000  # events a page of every delivery kept, filtered, looks through at most
EARLIEST = (-1.0, "")  # a cursor before every delivery
OPEN_STATES = ("pending", "outcome_unknown", "failed")

# ?1 the range's start and ?2 its end (of the event's emission), ?3 and ?4 the cursor (emitted_at,
# id), exclusive, ?5 a state, ?6 a GLOB on the queue, ?7 on the event's name, ?8 on the emitting
# run's schedule, each or NULL; ?9 how many rows at most, ?10 the window of events looked through.
DELIVERY_MATCHED = """e.emitted_at >= ?1 AND e.emitted_at < ?2 AND (e.emitted_at, d.id) > (?3, ?4)
  AND (?5 IS NULL OR d.state = ?5) AND (?6 IS NULL OR d.queue GLOB ?6) AND (?7 IS NULL OR e.name GLOB ?7)
  AND (?8 IS NULL OR (SELECT r.schedule FROM tickwork_runs AS r WHERE r.id = e.run) GLOB ?8)"""
PAGE_COLUMNS = """d.*, e.name AS event_name, substr(e.body, 1, 200) AS body, length(e.body) AS body_length,
       e.run AS run, e.emitted_at AS emitted_at,
       (SELECT r.schedule FROM tickwork_runs AS r WHERE r.id = e.run) AS schedule"""
SELECT_OPEN_PAGE = f"""SELECT {PAGE_COLUMNS} FROM {OPEN_ROWS}
WHERE {OPEN_DELIVERIES} AND {DELIVERY_MATCHED}
ORDER BY e.emitted_at, d.id LIMIT CAST(?9 AS INTEGER)"""
# The window: the events after the cursor in the range, SEARCHED at most (?10), whose deliveries
# the filters then pick from; `stop`, the emission of the last of them where it filled (read along
# the events' index alone, once a statement): the page shows those emitted before it, read in
# emission order and stopping when the page is full, and the next page looks on from it (unless
# the whole window shares the cursor's millisecond, which it then shows whole).
EVENTS_WINDOW_END = """SELECT e.emitted_at FROM tickwork_events AS e INDEXED BY tickwork_events_by_emitted
WHERE e.emitted_at >= ?1 AND e.emitted_at < ?2 AND e.emitted_at >= ?3
ORDER BY e.emitted_at LIMIT 1 OFFSET CAST(?10 AS INTEGER) - 1"""
# (The range's end and the window's are one bound, so that the index's range stops at the window.)
WINDOW_BOUND = f"""min(?2, IFNULL((SELECT CASE WHEN emitted_at > ?3 THEN emitted_at ELSE emitted_at + 1 END
                                  FROM ({EVENTS_WINDOW_END})), ?2))"""
SELECT_EVERY_PAGE = f"""SELECT {PAGE_COLUMNS} FROM {EVERY_ROW}
WHERE {DELIVERY_MATCHED.replace("e.emitted_at < ?2", "e.emitted_at < " + WINDOW_BOUND)}
ORDER BY e.emitted_at, d.id LIMIT CAST(?9 AS INTEGER)"""
# With no filter but the range, a page is read along the events' index from the cursor and
# stops when it is full: no window.
SELECT_EVERY_PLAIN = f"""SELECT {PAGE_COLUMNS} FROM {EVERY_ROW}
WHERE {DELIVERY_MATCHED} AND ?10 IS NOT NULL
ORDER BY e.emitted_at, d.id LIMIT CAST(?9 AS INTEGER)"""
# The window's end alone (?1 to ?3 as above, ?4 the window): the next page looks on from it.
EVERY_STOP = EVENTS_WINDOW_END.replace("?10", "?4")

# What operators did to the deliveries of the page, newest first, through the log's index on
# (delivery, at): the page's statement again, in the same batch.
PAGE_LOG = "SELECT * FROM tickwork_operator_log WHERE delivery IN (SELECT id FROM ({page})) ORDER BY at DESC"
SELECT_OPEN_PAGE_LOG = PAGE_LOG.format(page=SELECT_OPEN_PAGE)
# A filtered page's log is read after it, of the ids it shows, only where it shows any: the page's
# statement again would read its window twice.
LOG_OF_SHOWN = """SELECT * FROM tickwork_operator_log WHERE delivery IN (SELECT value FROM json_each(?1))
ORDER BY at DESC"""
SELECT_EVERY_PLAIN_LOG = PAGE_LOG.format(page=SELECT_EVERY_PLAIN)


@dataclass(frozen=True)
class DeliveryFilter:
    """What the deliveries page shows: `every` kept (else those an operator may act on), and each
    filter or None; the range is of the events' emission (epoch ms, to exclusive)."""

    every: bool
    state: str | None = None
    queue: str | None = None  # GLOBs
    schedule: str | None = None
    start: int = 0
    end: int = NEVER
    event: str | None = None

    @property
    def along_events(self) -> bool:
        return self.every and self.state not in OPEN_STATES

    @property
    def windowed(self) -> bool:
        """Whether a filter past the range is in it: a page along the events looks through a window."""
        return any(value is not None for value in (self.state, self.queue, self.event, self.schedule))

    def parameters(self, after: tuple[float, str], most: int) -> tuple[object, ...]:
        return (self.start, float(self.end), after[0], after[1], self.state, self.queue, self.event, self.schedule,
                most, SEARCHED)


@dataclass(frozen=True)
class FilteredDeliveries:
    rows: list[Row]
    log: list[Row]
    stop: int | None  # where the window of events filled: the emission it looked as far as


async def filtered_deliveries(db: Database, deliveries: DeliveryFilter, after: tuple[float, str],
                              most: int) -> FilteredDeliveries:
    """The deliveries `deliveries` shows after the cursor `after`, `most` at most, and their log: in
    one batch, or where a filter looks through a window, the log of those shown after it."""
    bound = deliveries.parameters(after, most)
    if not deliveries.along_events:
        rows, log = await db.batch([(SELECT_OPEN_PAGE, bound[:9]), (SELECT_OPEN_PAGE_LOG, bound[:9])])
        return FilteredDeliveries(rows, log, None)
    if not deliveries.windowed:
        rows, log = await db.batch([(SELECT_EVERY_PLAIN, bound), (SELECT_EVERY_PLAIN_LOG, bound)])
        return FilteredDeliveries(rows, log, None)
    rows, stop = await db.batch([(SELECT_EVERY_PAGE, bound), (EVERY_STOP, (*bound[:3], SEARCHED))])
    log = await db.all(LOG_OF_SHOWN, (json.dumps([row["id"] for row in rows]),)) if rows else []
    reached = int(stop[0]["emitted_at"]) if stop else None
    return FilteredDeliveries(rows, log, reached if reached is not None and reached > after[0] else None)
