"""The lag from due to start of the runs of a window, from their records: p50, p95 and p99 per
schedule and over all (`tickwork status`, the console's overview; docs: how-to/metrics.md).

Worked out in one statement, in SQL, so the command and the console receive a row a schedule, not
a row a run. It reads the window's records alone: a tick's run ids begin with `z` and its tick
(operator.NEW_SINCE), so those since a time are a range of the primary key, read newest first and
stopped at `most`. Records of other ids (made before migration 0017, and the skips recording what a
calendar missed while it was removed) have no start this window could hold, so none is read.
"""

from dataclasses import dataclass

from ..database import Database
from .operator import NEW_SINCE

LAGS_READ = 10_000  # the latest runs of a window the percentiles are worked out from, at most

# A run's lag: the due time it is for to the start of its tick's lease. The first attempt of a
# due run only: a retry waits its pause on purpose, a run by hand and a backfilled one are for a
# time long past. Percentiles by nearest rank (the k-th of n sorted, k = ceil(p * n)), per
# schedule and, as the row whose schedule is NULL, over all. ?1 the window's start, ?2 how many
# runs at most (the latest). `lags` is read twice, so it is made once (MATERIALIZED).
LAG_PERCENTILES = f"""
WITH lags AS MATERIALIZED (
    SELECT r.schedule AS schedule, max(r.started_at - r.due_at, 0) AS lag
    FROM tickwork_runs AS r
    WHERE {NEW_SINCE} AND r.started_at IS NOT NULL AND r.by_hand IS NULL AND r.backfill IS NULL
      AND coalesce(r.attempt, 1) = 1
    ORDER BY r.id DESC LIMIT CAST(?2 AS INTEGER)
), ranked AS (
    SELECT schedule, lag, row_number() OVER (PARTITION BY schedule ORDER BY lag) AS k,
           count(*) OVER (PARTITION BY schedule) AS n
    FROM lags
    UNION ALL
    SELECT NULL, lag, row_number() OVER (ORDER BY lag), count(*) OVER () FROM lags
)
SELECT schedule, max(n) AS runs,
       min(CASE WHEN k * 100 >= n * 50 THEN lag END) AS p50,
       min(CASE WHEN k * 100 >= n * 95 THEN lag END) AS p95,
       min(CASE WHEN k * 100 >= n * 99 THEN lag END) AS p99,
       max(lag) AS worst
FROM ranked GROUP BY schedule ORDER BY schedule IS NOT NULL, schedule
"""


@dataclass(frozen=True)
class Lag:
    """The lag of a schedule's runs (or, `schedule` None, of all), in ms."""

    schedule: str | None
    runs: int
    p50: int
    p95: int
    p99: int
    worst: int


async def lags_since(db: Database, since: int, most: int = LAGS_READ) -> list[Lag]:
    """The lags of the runs started since `since` (the latest `most`): over all first (none
    without runs), then each schedule by name."""
    rows = await db.all(LAG_PERCENTILES, (since, most))
    return [Lag(r["schedule"], int(r["runs"]), int(r["p50"]), int(r["p95"]), int(r["p99"]), int(r["worst"]))
            for r in rows if r["runs"]]
