"""The console's deploys: a page of the markers (newest first, keyset paged, as `tickwork deploys`),
the latest few on the overview, and on a schedule's page the runs of its history skipped or
missed after a deploy, beside that deploy. The words are operating/deploys.py's, the command's."""

from ..operating.deploys import DeployView, deploy_before, deploy_view, deploy_words, what_changed
from ..operating.views import run_view
from ..store.deploys import Deploy, Deploys
from .html import Html, join, link, table, tag
from .parts import Frame, moment, outcome, page

OVERVIEW_MOST = 5  # the latest deploys the overview lists; the page lists them all
AFTER_MOST = 5  # the runs skipped or missed the overview shows beside each of them
AFTER_READ = 50  # the runs read for them all (a deploy that removed many says "and N more" of those read)


def _version(view: DeployView) -> Html | str:
    if view.version is None:
        return ""
    return tag("span", view.version + (f" ({view.tag})" if view.tag else ""), class_="id")


def deploys_table(frame: Frame, deploys: list[Deploy], after: dict[int, list[dict]] | None = None) -> Html:
    """`after` (the overview's): the runs skipped or missed after each deploy, a column of their own."""
    views = [deploy_view(deploy) for deploy in deploys]
    heads = ["DEPLOYED", "VERSION", "WHAT CHANGED"] + (["SKIPPED OR MISSED AFTER"] if after is not None else [])
    rows = [[moment(v.at, frame.now), _version(v), what_changed(d)]
            + ([_runs_after(frame, after.get(d.at, []))] if after is not None else [])
            for v, d in zip(views, deploys, strict=True)]
    return table(heads, rows, "no deploy recorded yet")


def _runs_after(frame: Frame, runs: list[dict]) -> Html | str:
    """`daily skipped (undeclared) 2026-01-02 09:00 UTC; ...`: each run linked to its schedule."""
    shown = [join([link(frame.href("/schedule", name=run["schedule"]), run["schedule"]), " ", outcome(run), " ",
                   moment(int(run["due_at"]), frame.now)]) for run in runs[:AFTER_MOST]]
    more = [f"and {len(runs) - AFTER_MOST} more"] if len(runs) > AFTER_MOST else []
    return join([*shown, *more], "; ") if runs else ""


def deploys_page(frame: Frame, deploys: list[Deploy], more: bool) -> str:
    body = [tag("p", "Each change of the declared schedules, as the first tick after it noticed it."),
            deploys_table(frame, deploys)]
    if more:
        body.append(tag("p", link(frame.href("/deploys", before=str(deploys[-1].id)), "older deploys")))
    return page(frame, "/deploys", "Deploys", *body)


def overview_section(frame: Frame, deploys: list[Deploy], after: dict[int, list[dict]] | None = None) -> list[Html]:
    """The latest deploys, each with the runs skipped or missed in the hour after it."""
    listed = [deploys_table(frame, deploys[:OVERVIEW_MOST], after or {})]
    if len(deploys) > OVERVIEW_MOST:
        listed.append(tag("p", link(frame.href("/deploys"), "every deploy")))
    return [tag("h2", "Deploys"), *listed]


def beside_history(frame: Frame, runs: list[dict], deploys: list[Deploy], zone: str | None) -> list[Html]:
    """The runs of a schedule's page skipped or missed after a deploy, each beside that deploy."""
    rows = []
    for run in runs:
        deploy = deploy_before(run, deploys)
        if deploy is not None:
            rows.append([moment(run_view(run).due_at, frame.now, zone), outcome(run), deploy_words(deploy)])
    if not rows:
        return []
    return [tag("h2", "Skipped or missed after a deploy"), table(["DUE (UTC, ITS ZONE)", "OUTCOME", "AFTER"], rows)]


async def page_of(db, before: int | None, most: int) -> list[Deploy]:
    return await Deploys(db).page(before, most)
