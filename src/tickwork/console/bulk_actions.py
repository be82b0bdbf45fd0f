"""The console's bulk actions: the failed runs the runs page's filter shows retried, the
deliveries the deliveries page's filter shows dismissed or cancelled. Each posts a dry run first
(`dry`), which lists what it would take and the cap, and whose form then makes the change; the
change answers 303 to the page it came from with what it did sealed (routes.see_other), so that a
reload does not post it again and a count in an address is never shown as if a change had said it."""

from dataclasses import dataclass

from ..database import Database
from ..operating.remake import remake_failed
from ..store.bulk_verbs import BulkVerbs
from . import deliveries_page, filters, runs_page
from .parts import Frame

ROUTES = ("/runs/retry", "/deliveries/dismiss", "/deliveries/cancel")
DONE = {"dismiss": "dismissed", "cancel": "cancelled"}


@dataclass(frozen=True)
class Answer:
    status: int
    body: str = ""
    said: str | None = None  # what the change did, for a 303 to the page it came from (routes.see_other)


async def act(db: Database, frame: Frame, route: str, form: dict, back: str) -> Answer:
    """`form`: the filter as the page posted it; raises filters.Refused for a value no form writes."""
    dry = bool(form.get("dry"))
    if route == "/runs/retry":
        runs = filters.run_filter(form, frame.now)
        bulk = await remake_failed(db, runs, frame.who, frame.now, dry)
        if dry:
            return Answer(200, runs_page.retry_listed(frame, bulk, runs, filters.shown(form, filters.RUN_KEYS), back))
        return Answer(303, said=runs_page.RETRIED.format(n=len(bulk.changed), who=frame.who))
    verb = route.rpartition("/")[2]
    deliveries = filters.delivery_filter(form, frame.now)
    bulk = await BulkVerbs(db).set_aside(verb, deliveries, frame.who, frame.now, dry, filters.after(form))
    if dry:
        shown = filters.shown(form, (*filters.DELIVERY_KEYS, "after"))
        return Answer(200, deliveries_page.set_aside_listed(frame, verb, bulk, shown, back))
    return Answer(303, said=deliveries_page.DONE.format(n=len(bulk.changed), done=DONE[verb], who=frame.who))

