"""`history` without a name: the runs and skips across every schedule, the latest tick first, a
page at a time (`--before` the cursor the page before gave), by `--since`, `--outcome` and a
name pattern, each with its schedule's label."""

import re

from tickwork.operating.views import page as _page
from tickwork.store.operator import PAST_EVERY_RUN, OperatorStore

from .verbs import Answer, _call_words, _clip, _did, _due_words, _missed_words, _run_item, _table, _took_words
from .words import when


def cursor(run: dict) -> str:
    """The cursor of the page after `run`, the last of a page: `tick_at/id`."""
    return f"{int(run['tick_at'])}/{run['id']}"


def read_cursor(text: str) -> tuple[int, str] | None:
    """The cursor `cursor` wrote, or None: a tick below PAST_EVERY_RUN's, and an id."""
    tick, _, id = text.partition("/")
    return (int(tick), id) if re.fullmatch("[0-9]{1,16}", tick) and int(tick) < PAST_EVERY_RUN[0] and id else None


async def recent(store: OperatorStore, now: int, since: int | None, outcome: str | None, name_glob: str | None,
                 before: tuple[int, str] | None, limit: int) -> Answer:
    """A page of runs and skips across schedules, the latest tick first."""
    runs = await store.recent_runs(since, before, outcome, name_glob, limit + 1)  # one more: is there a next page
    runs, after = _page(runs, limit, cursor)
    items = [{"schedule": run["schedule"], "label": run.get("label"), **_run_item(run, now)} for run in runs]
    data = {"runs": items, "next_before": after}
    what = f"{outcome} run" if outcome else "run"
    head = (f"{len(items)} {what}{'' if len(items) == 1 else 's'} across schedules"
            + (f" matching {name_glob}" if name_glob else "") + (f" since {when(since)}" if since is not None else "")
            + ", latest tick first")
    lines = [head]
    if items:
        table = []
        for i, run in zip(items, runs, strict=True):
            table.append([when(i["tick"]["ms"]), i["schedule"], _clip(i["label"], 30), _due_words(i),
                          _took_words(i), i["outcome"], i["code"] or "",
                          _call_words(run), _did(run), _missed_words(run, i["schedule"]), _clip(i["detail"], 50)])
        lines += _table(["TICK", "SCHEDULE", "LABEL", "DUE", "TOOK", "OUTCOME", "CODE", "CALL", "DID", "MISSED",
                         "DETAIL"], table)
    if after:
        lines += ["", f"more: tickwork history --before {after} (with the same filters)"]
    return Answer(data, lines)
