"""The console's page of runs across schedules: a form of filters, the runs it shows newest tick
first, a page at a time."""

from ..operating import words
from ..operating.views import zone_of
from .html import join, link, table, tag
from .parts import Frame, choice, field, moment, outcome_noted, page, search_form, took

OUTCOMES = [("", "any"), ("succeeded", "succeeded"), ("failed", "failed"), ("skipped", "skipped"),
            ("running", "running")]
SINCE = [("1h", "the last hour"), ("24h", "the last day"), ("7d", "the last week"), ("all", "all kept")]


def runs(frame: Frame, rows: list[dict], more: bool, query: dict) -> str:
    form = search_form(frame, "/runs", [
        ("since", choice("since", query.get("since") or "24h", SINCE)),
        ("outcome", choice("outcome", query.get("outcome"), OUTCOMES)),
        ("name", field("name", query.get("name"), "a name or GLOB: send_*")),
    ])
    listed = table(
        ["TICK (UTC, ITS ZONE)", "SCHEDULE", "DUE", "TOOK", "OUTCOME", "CALL", "DID", "TRACE", "DETAIL"],
        [[moment(run["tick_at"], frame.now, zone_of(run.get("form"))),
          join([link(frame.href("/schedule", name=run["schedule"]), run["schedule"], class_="id"),
                tag("span", f"label {run['label']}", class_="zone") if run.get("label") else ""]),
          moment(None if words.ahead_of_due(run) else run["due_at"], frame.now), took(run), outcome_noted(run),
          words.call_words(run), words.did(run), tag("span", run.get("trace") or "", class_="id"),
          words.clip(run.get("detail"), 120)] for run in rows], "no runs match")
    body = [form, listed]
    if more:
        before = f"{int(rows[-1]['tick_at'])}:{rows[-1]['id']}"
        body.append(tag("p", link(frame.href("/runs", **{**query, "before": before}),
                                  "older runs")))
    return page(frame, "/runs", "Runs across schedules", *body)
