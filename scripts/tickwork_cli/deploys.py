"""`tickwork deploys`: the deploy markers, the newest first, a page at a time (`--before` the cursor
the page before gave); and the deploy beside the runs `history` and `why` show skipped or missed
around it. The words are tickwork.operating.deploys', which the console renders too."""

import re

from tickwork.operating.deploys import deploy_before, deploy_view, deploy_words, span_of
from tickwork.operating.views import page as _page
from tickwork.store.deploys import Deploy, Deploys
from tickwork.store.operator import OperatorStore

from .verbs import Answer, OperatorError, _table
from .words import when


def read_cursor(text: str | None) -> int | None:
    if text is None:
        return None
    if not re.fullmatch("[0-9]{1,15}", text):
        raise OperatorError(f"`{text}` is no cursor: give the one a page of deploys ended with (a number)")
    return int(text)


async def deploys(store: OperatorStore, now: int, before: str | None, limit: int) -> Answer:
    """A page of deploy markers, the newest first."""
    found = await Deploys(store.db).page(read_cursor(before), limit + 1)  # one more: is there a next page
    found, after = _page(found, limit, lambda deploy: deploy.id)
    views = [deploy_view(deploy) for deploy in found]
    data = {"deploys": [view.item() for view in views], "next_before": None if after is None else str(after)}
    lines = [f"{len(views)} deploy{'' if len(views) == 1 else 's'}, newest first"]
    if views:
        lines += _table(["DEPLOYED", "VERSION", "ADDED", "REMOVED", "CHANGED"],
                        [[when(v.at), (v.version or "-")[:13] + (f" {v.tag}" if v.tag else ""), str(len(v.added)),
                          str(len(v.removed)), str(len(v.changed))] for v in views])
        lines += [""] + [f"  {v.words}" for v in views]
    if after is not None:
        lines += ["", f"more: tickwork deploys --before {after}"]
    return Answer(data, lines)


def _as_run(item: dict) -> dict:
    return {"tick_at": (item.get("tick") or {}).get("ms"), "outcome": item.get("outcome"), "covers": item.get("covers")}


async def _around(store: OperatorStore, items: list[dict]) -> list[Deploy]:
    span = span_of([_as_run(item) for item in items])
    return await Deploys(store.db).around(*span) if span else []


async def beside_history(store: OperatorStore, answer: Answer) -> Answer:
    """`history NAME`'s answer with each run skipped or missed after a deploy beside that deploy."""
    items = answer.data["runs"]  # type: ignore[index]
    found = await _around(store, items)
    by_deploy: dict[int, tuple[Deploy, list[str]]] = {}
    for item in items:
        deploy = deploy_before(_as_run(item), found)
        item["after_deploy"] = deploy_view(deploy).item() if deploy else None
        if deploy is not None:
            due = when(item["due"]["ms"]) if item.get("due") else "by hand"
            by_deploy.setdefault(deploy.id, (deploy, []))[1].append(f"{due} {item['outcome']}"
                                                                    + (f" {item['code']}" if item.get("code") else ""))
    if by_deploy:
        answer.lines += ["", "Skipped or missed after a deploy:"]
        answer.lines += [f"  {', '.join(runs)}: after {deploy_words(deploy)}" for deploy, runs in by_deploy.values()]
    return answer


async def beside_why(store: OperatorStore, answer: Answer) -> Answer:
    """`why NAME`'s answer with the deploy that preceded its last run, where it was skipped or missed."""
    data = answer.data
    last = data.get("last_run") if isinstance(data, dict) else None
    deploy = deploy_before(_as_run(last), await _around(store, [last])) if last else None
    if isinstance(data, dict):
        data["deploy"] = deploy_view(deploy).item() if deploy else None
    if deploy is not None:
        at = next((k for k, line in enumerate(answer.lines) if line.startswith("  last ")), len(answer.lines) - 1)
        answer.lines.insert(at + 1, f"  deploy     {deploy_words(deploy)}")
    return answer
