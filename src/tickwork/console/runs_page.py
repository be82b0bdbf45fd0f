"""The console's page of runs across schedules: a form of filters, the runs it shows newest tick
first, a page at a time, and the bulk retry of the failed runs it shows (a dry run first)."""

from ..operating import words
from ..operating.remake import why_not_remade
from ..operating.views import zone_of
from ..operating.words import when
from ..store.bulk_verbs import Bulk
from ..store.run_filters import SEARCHED, RunFilter
from ..times import NEVER
from .html import Html, join, link, table, tag
from .parts import Frame, choice, field, hidden, moment, outcome_noted, page, run_link, said, search_form, took

OUTCOMES = [("", "any"), ("succeeded", "succeeded"), ("failed", "failed"), ("skipped", "skipped"),
            ("running", "running")]
SINCE = [("1h", "the last hour"), ("24h", "the last day"), ("7d", "the last week"), ("all", "all kept")]
RETRIED = ("{n} failed due times asked for again, each made once by the next tick as a remake of its failed run "
           "(one operator-log row each, logged as {who}).")
FILTERS = ("from", "to", "name", "label", "action", "trace", "error")


def runs(frame: Frame, rows: list[dict], more: bool, query: dict, stop: tuple[int, str] | None = None) -> str:
    """`stop`: where a filter no index serves stopped looking (SEARCHED runs), with more before it."""
    form = search_form(frame, "/runs", [
        ("since", choice("since", query.get("since") or "24h", SINCE)),
        ("from", field("from", query.get("from"), "2026-03-02T09:00Z")),
        ("to", field("to", query.get("to"), "2026-03-02T10:00Z")),
        ("outcome", choice("outcome", query.get("outcome"), OUTCOMES)),
        ("name", field("name", query.get("name"), "a name or GLOB: send_*")),
        ("label", field("label", query.get("label"), "a label or GLOB")),
        ("action", field("action", query.get("action"), "app:remind")),
        ("trace", field("trace", query.get("trace"), "a trace id")),
        ("error", field("error", query.get("error"), "text of the error")),
    ])
    listed = table(
        ["TICK (UTC, ITS ZONE)", "SCHEDULE", "DUE", "TOOK", "OUTCOME", "CALL", "DID", "TRACE", "DETAIL"],
        [[moment(run["tick_at"], frame.now, zone_of(run.get("form"))),
          join([link(frame.href("/schedule", name=run["schedule"]), run["schedule"], class_="id"),
                tag("span", f"label {run['label']}", class_="zone") if run.get("label") else ""]),
          moment(None if words.ahead_of_due(run) else run["due_at"], frame.now), took(run),
          run_link(frame, run, outcome_noted(run)),
          words.call_words(run), words.did(run), tag("span", run.get("trace") or "", class_="id"),
          words.clip(run.get("detail"), 120)] for run in rows], "no runs match")
    body = [form, listed]
    if more:
        before = f"{int(rows[-1]['tick_at'])}:{rows[-1]['id']}"
        body.append(tag("p", link(frame.href("/runs", **{**query, "before": before}), "older runs")))
    elif stop is not None:
        body.append(tag("p", f"A filter by name, label, action, trace, error text or an outcome other than failed "
                             f"looks through {SEARCHED:,} runs a page: this one looked back to {when(stop[0])}. ",
                        link(frame.href("/runs", **{**query, "before": f"{stop[0]}:{stop[1]}"}), "look further"),
                        class_="muted"))
    if any(run["outcome"] == "failed" for run in rows) or query.get("outcome") == "failed":
        back = frame.href("/runs", **{key: value for key, value in query.items() if key != "before"})
        body.append(retry_form(frame, query, back, "List the failed runs this filter shows, to retry them", dry=True))
    return page(frame, "/runs", "Runs across schedules", *body)


def retry_form(frame: Frame, query: dict, back: str, label: str, dry: bool) -> Html:
    """The bulk retry's form: the filter as the page shows it, and the page to come back to."""
    kept = {key: value for key, value in query.items() if key in (*FILTERS, "since") and value}
    return tag("form", *hidden(frame, back, **kept, **({"dry": "1"} if dry else {})),
               tag("button", label, type="submit"), method="post", action=frame.href("/runs/retry"),
               class_="actions")


def retry_listed(frame: Frame, bulk: Bulk, runs: RunFilter, query: dict, back: str) -> str:
    """The dry run of a bulk retry: each failed due time it would make again, why any is left out,
    how many, the cap, and the form that does it."""
    taken = [row for row in bulk.rows if row["remakable"]]
    listed = table(
        ["SCHEDULE", "DUE", "LATEST FAILED RUN", "MADE AGAIN?"],
        [[link(frame.href("/schedule", name=row["schedule"]), row["schedule"], class_="id"),
          moment(row["due_at"], frame.now), run_link(frame, row, row["id"]),
          "yes: by the next tick, once" if row["remakable"] else "no: " + (why_not_remade(row) or "it changed")]
         for row in bulk.rows], "no failed run matches")
    head = (f"{len(taken)} of the {len(bulk.rows)} failed due times this filter shows would each be made again "
            f"(the next tick makes each once, as a remake of its failed run), at most {bulk.most} a post"
            + (": there may be more; retry again after these" if len(bulk.rows) >= bulk.most else "") + ".")
    body = [said(head), listed]
    if taken:
        # The range as the dry run read it, fixed: `since` would move on by the time one confirms.
        fixed = {**query, "since": None if runs.start or runs.end < NEVER else "all",
                 "from": str(runs.start) if runs.start else None, "to": str(runs.end) if runs.end < NEVER else None}
        body.append(retry_form(frame, fixed, back, f"Make these {len(taken)} failed due times again", dry=False))
    body.append(tag("p", link(back, "back")))
    return page(frame, "/runs", "Retry failed runs: a dry run", *body)
