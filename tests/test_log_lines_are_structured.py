"""Issue 27: every line tickwork logs is one JSON object (level, event, schedule, at, trace and the
message), so exported logs join the run's trace; the Worker's line for each run carries the run's
trace, outcome and code."""

import json
import logging

from helpers import every, ticks

from tickwork.adapters.workers import describe
from tickwork.context import log
from tickwork.logs import run_ended
from tickwork.model import ActionError
from tickwork.times import utc


def lines(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line]


def test_a_failed_run_logs_one_json_line_with_its_trace_schedule_and_event(db, capsys):
    async def failing():
        raise ActionError("upstream_down", "the upstream answered 503")

    ticks(db, [every(15, "sync", failing)], utc("2026-03-02 09:00"))
    capsys.readouterr()
    [report] = ticks(db, [every(15, "sync", failing)], utc("2026-03-02 09:15"))
    [line] = [line for line in lines(capsys.readouterr().err) if line["event"] == "run_failed"]
    assert (line["level"], line["schedule"], line["trace"]) == ("error", "sync", report.runs[0].trace)
    assert line["message"].startswith("sync: run failed: upstream_down") and line["at"].endswith("Z")


def test_the_workers_line_of_a_run_is_json_with_its_outcome_and_trace(db, capsys):
    ticks(db, [every(15)], utc("2026-03-02 09:00"))
    [report] = ticks(db, [every(15)], utc("2026-03-02 09:15"))
    capsys.readouterr()
    run_ended(report.runs[0], describe(report.runs[0]), None)
    [line] = lines(capsys.readouterr().out)
    assert {k: line[k] for k in ("level", "event", "schedule", "outcome", "due", "attempt")} == {
        "level": "info", "event": "run", "schedule": "census", "outcome": "succeeded",
        "due": "2026-03-02T09:15:00.000Z", "attempt": 1}
    assert line["trace"] == report.runs[0].trace and line["message"].startswith("tickwork: census due")


def test_a_line_that_names_no_event_or_schedule_is_still_json(capsys):
    log.warning("the tick at %s failed", "x")
    [line] = lines(capsys.readouterr().err)
    assert (line["level"], line["event"], line["schedule"], line["trace"]) == ("warning", "log", None, None)


def test_a_line_with_a_traceback_keeps_it_in_one_line(capsys):
    try:
        raise ValueError("broken")
    except ValueError:
        log.exception("work handed to wait_until failed")
    [line] = lines(capsys.readouterr().err)
    assert "ValueError: broken" in line["stack"] and line["level"] == "error"
    assert logging.getLogger("tickwork").handlers  # one handler: the JSON lines'
