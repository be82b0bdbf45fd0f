"""The overview's lag from due to start (operating.lag_words, the view `tickwork status` renders):
over all, then the schedules of the longest p99, each linked to its page."""

from ..operating import words
from ..operating.lag_words import SHOWN, LagView
from ..store.lags import Lag
from .html import Html, link, table, tag
from .parts import Frame


def lag_section(frame: Frame, view: LagView | None) -> list[Html]:
    if view is None:
        return []
    latest = " (the latest runs)" if view.capped else ""
    slowest = sorted(view.schedules, key=lambda lag: (-lag.p99, lag.schedule or ""))[:SHOWN]

    def row(name: Html | str, lag: Lag) -> list:
        return [name, f"{lag.runs:,}", words.short(lag.p50), words.short(lag.p95), words.short(lag.p99)]

    rows = ([row("all schedules", view.overall)] if view.overall else []) + [
        row(link(frame.href("/schedule", name=lag.schedule), lag.schedule), lag) for lag in slowest]
    return [tag("h2", f"Lag from due to start, the last {words.short(view.window_ms)}{latest}"),
            table(["SCHEDULE", "RUNS", "P50", "P95", "P99"], rows, "no run started in it")]
