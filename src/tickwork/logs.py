"""Every line tickwork logs, as one JSON object a line, so that exported logs (Workers Logs, a
Logpush or OpenTelemetry export) are queried by field and join the run's trace:

    {"level": "error", "event": "run_failed", "schedule": "nightly_report", "at": "2026-12-02T09:00:01.204Z",
     "trace": "4bf92f3577b34da6a3ce929d0e0e4736", "message": "nightly_report: run failed: ..."}

`level` (debug, info, warning, error), `event` (what happened: `run`, `skip`, `run_failed`,
`retry_scheduled`, ...: every call in tickwork names one (tests/test_every_log_call_names_its_event.py);
`log` only for a line of the logger "tickwork" logged from elsewhere), `schedule` and `trace` (null where the
line is of no one schedule or run; inside a run, the run's), `at` (when it was written, UTC), the
`message` in words, and for a run's line its `outcome`, `code`, `due` and `attempt`. The lines of
the logger "tickwork" come here (context.py hands them over at the first line logged, so a cold
start loads none of this), at warning and above as before; the Worker's line for each run and skip
(`run_ended`) always. The local host reads them back into its own words (scripts/host/cli.mjs).
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any

from .times import iso

FIELDS = ("schedule", "trace", "outcome", "code", "due", "attempt", "duration_ms", "next_attempt")


def line_of(record: logging.LogRecord, trace: str | None = None) -> str:
    """A log record as its JSON line; `trace` the run's under way, where the record names none."""
    said: dict[str, Any] = {
        "level": record.levelname.lower(), "event": getattr(record, "event", "log"),
        "schedule": getattr(record, "schedule", None), "trace": getattr(record, "trace", None) or trace,
        "at": iso(int(record.created * 1000)), "message": record.getMessage(),
    }
    said.update({k: getattr(record, k) for k in FIELDS[2:] if getattr(record, k, None) is not None})
    if record.exc_text:
        said["stack"] = record.exc_text
    return json.dumps(said)  # ASCII: no character a terminal acts on reaches it raw


def write(record: logging.LogRecord, trace: str | None = None) -> None:
    """A record's line: to stderr at warning and above (`console.error` on Workers), else stdout."""
    print(line_of(record, trace), file=sys.stderr if record.levelno >= logging.WARNING else sys.stdout, flush=True)


def run_ended(run: Any, message: str, code: str | None) -> None:
    """A run's or skip's line as the tick reports it (`event` run or skip), `message` its words and
    `code` its code, both with their control characters escaped: a failure at level error."""
    level = logging.ERROR if run.outcome == "failed" else logging.INFO
    record = logging.LogRecord("tickwork", level, __file__, 0, message, (), None)
    record.__dict__.update({
        "event": "skip" if run.outcome == "skipped" else "run", "schedule": run.schedule, "trace": run.trace,
        "outcome": str(run.outcome), "code": code,
        "due": iso(run.due_at), "attempt": run.attempt, "duration_ms": run.duration_ms,
        "next_attempt": None if run.next_attempt_at is None else iso(run.next_attempt_at)})
    print(line_of(record), flush=True)  # to stdout whatever its level: the invocation's account of its runs


