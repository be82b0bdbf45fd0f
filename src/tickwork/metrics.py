"""Metrics an operator can chart and alarm on: where an Analytics Engine dataset is bound
(`[tool.tickwork] metrics`, an `analytics_engine_datasets` binding), one data point per run and
per skip a tick made, written as the tick ends (a Workflow run's as it settles). `writeDataPoint`
is fire-and-forget: it costs no D1 statement, and a tick that made no run or skip writes none
(docs: how-to/metrics.md).

The layout, for the SQL API's queries (the index samples by schedule):

    index1  schedule
    blob1   schedule         double1  lag from due to start, ms (a skip: due to the tick)
    blob2   outcome          double2  attempt (1 the first)
    blob3   code, or ""      double3  missed: the occurrences the run covered besides its own
    blob4   trace id, or ""  double4  duration, ms (a skip: 0)
    blob5   origin: due, by_hand or backfill (the lag of a due run alone is the scheduler's)
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Iterable, Protocol

if TYPE_CHECKING:
    from .tick.reports import RunReport

log = logging.getLogger("tickwork")

BLOBS = ("schedule", "outcome", "code", "trace", "origin")
DOUBLES = ("lag_ms", "attempt", "missed", "duration_ms")


class Dataset(Protocol):
    """An Analytics Engine dataset as a binding gives it."""

    def writeDataPoint(self, point: dict[str, Any]) -> Any: ...  # noqa: N802 (the binding's own name)


def point_of(report: RunReport) -> dict[str, Any]:
    """The data point of one run or skip."""
    started = report.tick_at if report.started_at is None else report.started_at
    values = {
        "lag_ms": max(0, started - report.due_at), "attempt": report.attempt, "missed": report.missed,
        "duration_ms": report.duration_ms or 0,
    }
    said = {"schedule": report.schedule, "outcome": str(report.outcome), "code": report.code or "",
            "trace": report.trace or "", "origin": report.origin}
    return {"indexes": [report.schedule], "blobs": [said[b] for b in BLOBS],
            "doubles": [float(values[d]) for d in DOUBLES]}


def write_points(dataset: Dataset | None, reports: Iterable[RunReport]) -> int:
    """Each report's data point to `dataset`; how many were written. A write the binding refuses
    is logged, never the tick's failure: metrics are no run's record."""
    if dataset is None:
        return 0
    written = 0
    for report in reports:
        if report.outcome == "running":  # a Workflow's instance, created: its one point is written as it settles
            continue
        try:
            dataset.writeDataPoint(point_of(report))
            written += 1
        except Exception as error:
            log.warning("%s: its data point was not written to the metrics dataset: %s", report.schedule, error,
                        extra={"event": "data_point_unwritten", "schedule": report.schedule, "trace": report.trace})
    return written


class MemoryDataset:
    """For a test (`tickwork.testing.memory_dataset`): an Analytics Engine dataset that keeps the
    points written to it, as the binding takes them."""

    def __init__(self) -> None:
        self.points: list[dict[str, Any]] = []

    def writeDataPoint(self, point: dict[str, Any]) -> None:  # noqa: N802
        if not isinstance(point, dict) or set(point) - {"indexes", "blobs", "doubles"}:
            raise TypeError(f"a data point has indexes, blobs and doubles, not {point!r}")
        if len(point.get("indexes", ())) > 1 or len(point.get("blobs", ())) > 20 or len(point.get("doubles", ())) > 20:
            raise ValueError("a data point takes 1 index, 20 blobs and 20 doubles at most")
        self.points.append(point)

    def rows(self) -> list[dict[str, Any]]:
        """The points as the SQL API reads them: index1, blob1..., double1..."""
        return [{"index1": p["indexes"][0], **{f"blob{k + 1}": b for k, b in enumerate(p["blobs"])},
                 **{f"double{k + 1}": d for k, d in enumerate(p["doubles"])}} for p in self.points]
