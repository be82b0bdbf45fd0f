"""The lag from due to start of a window's runs (store.lags) as the operator reads it: one view
that `tickwork status` renders to text and JSON and the console's overview to HTML."""

from collections.abc import Sequence
from dataclasses import dataclass

from ..store.lags import LAGS_READ, Lag
from ..times import HOUR
from . import words

LAG_WINDOW = HOUR  # the window `tickwork status` and the console's overview work the lags out over
SHOWN = 10  # the schedules a text lists, those of the longest p99 first


@dataclass(frozen=True)
class LagView:
    window_ms: int
    overall: Lag | None
    schedules: tuple[Lag, ...]  # by name

    @property
    def capped(self) -> bool:
        """The window held more runs than were read: the percentiles are the latest LAGS_READ's."""
        return self.overall is not None and self.overall.runs >= LAGS_READ

    def data(self) -> dict:
        """For --json: every schedule's."""
        return {"window_ms": self.window_ms, "capped_at": LAGS_READ if self.capped else None,
                "overall": _data(self.overall) if self.overall else None,
                "schedules": {lag.schedule: _data(lag) for lag in self.schedules}}

    def lines(self) -> list[str]:
        """For the command's text: over all, then the schedules of the longest p99."""
        latest = f"the latest {LAGS_READ:,} runs of " if self.capped else ""
        head = f"Lag from due to start, {latest}the last {words.short(self.window_ms)}"
        if self.overall is None:
            return [f"{head}: no run started in it"]
        lines = [f"{head}: {percentile_words(self.overall)}"]
        slowest = sorted(self.schedules, key=lambda lag: (-lag.p99, lag.schedule or ""))
        lines += [f"  {lag.schedule}: {percentile_words(lag)}" for lag in slowest[:SHOWN]]
        if len(slowest) > SHOWN:
            lines.append(f"  and {len(slowest) - SHOWN} more schedules (--json lists every one)")
        return lines


def lag_view(lags: Sequence[Lag], window: int) -> LagView:
    overall = next((lag for lag in lags if lag.schedule is None), None)
    return LagView(window, overall, tuple(lag for lag in lags if lag.schedule is not None))


def percentile_words(lag: Lag) -> str:
    return (f"p50 {words.short(lag.p50)}, p95 {words.short(lag.p95)}, p99 {words.short(lag.p99)} "
            f"({lag.runs:,} run{'' if lag.runs == 1 else 's'})")


def _data(lag: Lag) -> dict:
    return {"runs": lag.runs, "p50_ms": lag.p50, "p95_ms": lag.p95, "p99_ms": lag.p99, "worst_ms": lag.worst}
