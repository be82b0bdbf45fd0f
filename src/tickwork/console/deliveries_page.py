"""The console's page of deliveries: those an operator may act on (or every one kept), each with
what operators did to it and the buttons of what may be done now."""

from ..operating import words
from ..operating.views import delivery_view
from ..operating.words import when
from .html import join, link, table, tag
from .parts import Frame, button, moment, page


def deliveries(frame: Frame, rows: list[dict], log: list[dict], every_state: bool, back: str) -> str:
    listed = []
    for row in rows:
        view = delivery_view(row)
        buttons = [button(frame, f"/delivery/{verb}", verb.capitalize(), back, id=view.id) for verb in view.verbs]
        logged = [f"{when(int(e['at']))} {e['who']} {e['verb']} ({e['detail']})"
                  for e in log if e["delivery"] == view.id]
        listed.append([tag("span", view.id, class_="id"), view.event_name, view.queue, view.state,
                       view.sends, moment(view.next_send, frame.now),
                       words.clip(view.last_error, 160), tag("code", words.clip(row.get("body"), 120)),
                       join([tag("div", line) for line in logged]), join(buttons)])
    switch = (link(frame.href("/deliveries"), "only those an operator may act on") if every_state
              else link(frame.href("/deliveries", all="1"), "every delivery kept"))
    return page(frame, "/deliveries", "Deliveries", tag("p", switch),
                table(["DELIVERY", "EVENT", "QUEUE", "STATE", "SENDS", "NEXT SEND", "LAST ERROR", "BODY",
                       "OPERATOR LOG", ""], listed, "no deliveries"))
