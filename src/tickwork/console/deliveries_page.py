"""The console's page of deliveries: those an operator may act on (or every one kept, or of a
state), filtered and paged by keyset, each with what operators did to it and the buttons of what
may be done now; and the bulk dismiss and cancel of those it shows (a dry run first)."""

from ..operating import words
from ..operating.views import delivery_view
from ..operating.words import when
from ..store.bulk_verbs import Bulk
from ..store.delivery_filters import SEARCHED
from .filters import DELIVERY_STATES
from .html import Html, join, link, table, tag
from .parts import Frame, button, choice, field, hidden, moment, page, run_link, said, search_form

STATES = [("", "those an operator may act on"), *((state, state) for state in DELIVERY_STATES)]
FILTERS = ("all", "state", "queue", "event", "schedule", "from", "to", "after")  # what a bulk form carries
DONE = "{n} deliveries {done} (one operator-log row each, logged as {who}): they are not sent again."
BULK = {"dismiss": "Dismiss", "cancel": "Cancel"}


def deliveries(frame: Frame, rows: list[dict], log: list[dict], query: dict, back: str, more: bool = False,
               stop: int | None = None) -> str:
    """`stop`: where the window of events a page of every delivery looks through stopped, with more after it."""
    listed = []
    for row in rows:
        view = delivery_view(row)
        buttons = [button(frame, f"/delivery/{verb}", verb.capitalize(), back, id=view.id) for verb in view.verbs]
        logged = [f"{when(int(e['at']))} {e['who']} {e['verb']} ({e['detail']})"
                  for e in log if e["delivery"] == view.id]
        listed.append([tag("span", view.id, class_="id"), view.event_name, view.queue,
                       view.state, view.sends, moment(view.next_send, frame.now), row.get("schedule") or "",
                       words.clip(view.last_error, 160), tag("code", words.clip(row.get("body"), 120)),
                       join([tag("div", line) for line in logged]),
                       run_link(frame, {"id": row.get("run")}, "its run") if row.get("run") else "", join(buttons)])
    every = query.get("all") == "1"
    switch = (link(frame.href("/deliveries"), "only those an operator may act on") if every
              else link(frame.href("/deliveries", all="1"), "every delivery kept"))
    body = [filter_form(frame, query), tag("p", switch),
            table(["DELIVERY", "EVENT", "QUEUE", "STATE", "SENDS", "NEXT SEND", "SCHEDULE", "LAST ERROR", "BODY",
                   "OPERATOR LOG", "RUN", ""], listed, "no deliveries")]
    if more:
        after = f"{int(rows[-1]['emitted_at'])}:{rows[-1]['id']}"
        body.append(tag("p", link(frame.href("/deliveries", **{**query, "after": after}), "next page")))
    elif stop is not None:
        body.append(tag("p", f"A page of every delivery kept looks through the deliveries of {SEARCHED:,} events "
                             f"at most: this one looked as far as those emitted at {when(stop)}. ",
                        link(frame.href("/deliveries", **{**query, "after": f"{stop}:"}), "look further"),
                        class_="muted"))
    verbs = [verb for verb in BULK if any(verb in delivery_view(row).verbs for row in rows)]
    if verbs:
        body.append(bulk_form(frame, query, back, verbs, dry=True))
    return page(frame, "/deliveries", "Deliveries", *body)


def filter_form(frame: Frame, query: dict) -> Html:
    fields = [("state", choice("state", query.get("state"), STATES)),
              ("queue", field("queue", query.get("queue"), "a queue binding or GLOB")),
              ("event", field("event", query.get("event"), "an event or GLOB")),
              ("schedule", field("schedule", query.get("schedule"), "the emitting schedule")),
              ("emitted from", field("from", query.get("from"), "2026-03-02T09:00Z")),
              ("to", field("to", query.get("to"), "2026-03-02T10:00Z"))]
    if query.get("all") == "1":
        fields.insert(0, ("", tag("input", type="hidden", name="all", value="1")))
    return search_form(frame, "/deliveries", fields)


def bulk_form(frame: Frame, query: dict, back: str, verbs: list[str], dry: bool, count: int | None = None) -> Html:
    """A form per verb over the deliveries the filter shows: a dry run first, then the change."""
    kept = {key: value for key, value in query.items() if key in FILTERS and value}
    return tag("div", *(tag("form", *hidden(frame, back, **kept, **({"dry": "1"} if dry else {})),
                            tag("button", (f"{BULK[verb]} the deliveries this filter shows: list them first" if dry
                                           else f"{BULK[verb]} these {count} deliveries"), type="submit"),
                            method="post", action=frame.href(f"/deliveries/{verb}"), class_="inline")
                        for verb in verbs), class_="actions")


def set_aside_listed(frame: Frame, verb: str, bulk: Bulk, query: dict, back: str) -> str:
    """The dry run of a bulk dismiss or cancel: the deliveries it would take, how many, the cap."""
    listed = table(["DELIVERY", "EVENT", "QUEUE", "SCHEDULE", "STATE", "LAST ERROR"],
                   [[tag("span", row["id"], class_="id"), row["event_name"], row["queue"], row.get("schedule") or "",
                     row["state"], words.clip(row.get("last_error"), 120)] for row in bulk.rows],
                   "no delivery this filter shows may be " + ("dismissed" if verb == "dismiss" else "cancelled"))
    head = (f"{verb.capitalize()} would take these {len(bulk.rows)} deliveries, at most {bulk.most} a post"
            + (": there may be more; do it again after these" if len(bulk.rows) >= bulk.most else "")
            + ". Neither is sent again.")
    body = [said(head), listed]
    if bulk.rows:
        body.append(bulk_form(frame, query, back, [verb], dry=False, count=len(bulk.rows)))
    body.append(tag("p", link(back, "back")))
    return page(frame, "/deliveries", f"{BULK[verb]} deliveries: a dry run", *body)
