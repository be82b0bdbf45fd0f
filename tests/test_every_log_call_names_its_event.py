"""Issue 27: every line tickwork logs names what happened (`event`), so that no exported line says
event "log": each call of the logger "tickwork" in src/tickwork passes `extra` with an `event`, and
its `schedule` where the call is of one schedule."""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "tickwork"
LEVELS = {"debug", "info", "warning", "error", "exception", "critical"}


def log_calls():
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LEVELS
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "log"):
                yield f"{path.relative_to(SRC)}:{node.lineno}", node


def event_of(call: ast.Call):
    extra = next((k.value for k in call.keywords if k.arg == "extra"), None)
    if isinstance(extra, ast.Dict):
        return next((v.value for k, v in zip(extra.keys, extra.values, strict=True)
                     if isinstance(k, ast.Constant) and k.value == "event" and isinstance(v, ast.Constant)), None)
    if isinstance(extra, ast.Call) and extra.args and isinstance(extra.args[-1], ast.Constant):
        return extra.args[-1].value  # said(claim, "event"): the run's fields and its event
    return None


def test_the_log_calls_are_found():
    assert len(list(log_calls())) > 30


def test_every_log_call_names_its_event():
    unnamed = [where for where, call in log_calls() if not event_of(call)]
    assert unnamed == []


def test_each_event_is_a_word_of_its_own():
    for where, call in log_calls():
        assert str(event_of(call)).replace("_", "").isalpha() and event_of(call) != "log", where


def test_the_events_the_metrics_page_names_are_the_ones_the_code_logs():
    import re

    page = (SRC.parent.parent / "docs" / "how-to" / "metrics.md").read_text()
    listed = page[page.index("every other line names its own:"):page.index("(each log call in tickwork has one;")]
    named = set(re.findall(r"`([a-z_]+)`", listed))
    logged = {event_of(call) for _, call in log_calls()}
    assert {"wakes_unsent", "wake_failed", "workflows_unsettled"} <= named  # the wake queue's and the Workflows'
    assert named - logged == set()
