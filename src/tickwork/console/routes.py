"""The console's one entry, `serve`: a request under the prefix, checked for access, to its page
or its action. Pages are GETs and change nothing; actions are POSTs with the form token, each
one operator change as the command makes it (operator_store.py), logged with who made it."""

import json
import re
from dataclasses import replace
from urllib.parse import urlencode

from .. import backfill
from ..operating import words
from ..operating.views import entry_of_schedule
from ..app import App, timing_of
from ..database import Database, one_invocation
from ..store.operator import OperatorStore
from ..errors import ScheduleError
from ..operating.remake import UNKNOWN, remake
from .terminating import terminated
from ..times import DAY, HOUR, NEVER, instant
from ..operating.deploys import AROUND, span_of
from ..store.deploys import Deploys
from ..operating.lag_words import LAG_WINDOW, lag_view
from ..store.lags import lags_since
from ..store.delivery_filters import filtered_deliveries
from ..store.run_filters import LATEST, filtered_runs
from . import bulk_actions, csrf, deliveries_page, deploys, filters, pages, runs_page
from .access import Checked, Local, Refused, identify
from .console_store import ConsoleStore
from .http import BODY_MOST, Request, Response
from .run_page import run_page
from .run_store import RunStore

PAGE = 50  # rows a page of schedules, runs or log
DELIVERIES = 200  # rows a page of deliveries
NEXT_DUE = 5  # due times shown ahead
DEFAULT_PREFIX = "/tickwork"  # where the local host serves it for an app that sets none

# Nothing from another origin, no framing, no inline script or style: the page's own
# stylesheet only, forms posting back to the console.
SECURITY_HEADERS = {
    "content-security-policy": "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
                               "frame-ancestors 'none'; base-uri 'none'",
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cache-control": "no-store",
}
HTML = "text/html; charset=utf-8"

SCHEDULE_VERBS = {"pause": "pause", "resume": "resume", "run": "run", "cancel": "cancel_item"}
DELIVERY_VERBS = ("retry", "dismiss", "cancel")
SEARCHED_IN = ("name", "action", "label", "input")
STATES = tuple(state for state, _ in pages.STATES)  # the filter the page offers: a row's state, or all
CURSOR_TIME = re.compile(r"[0-9]{1,15}")  # epoch ms as the pages write them: far below 2**53, bound as a number
LONGEST_TEXT = filters.LONGEST  # characters of a search, a name or a page's bound; SQLite refuses a GLOB past 50,000


Unwritten = filters.Refused  # a query value none of the console's pages writes: a 400 naming it


def prefix_of(app: App) -> str:
    return (app.console or {}).get("prefix") or DEFAULT_PREFIX


def respond(status: int, body: str | bytes, content_type: str = HTML, **headers) -> Response:
    return Response(status, body, {**SECURITY_HEADERS, "content-type": content_type,
                                   **{key.replace("_", "-"): value for key, value in headers.items()}})


@one_invocation(lambda app, *_: app.statements_per_tick)
async def serve(db: Database, app: App, request: Request, now: int, access: Checked | Local) -> Response:
    """The console's answer to `request` (its path under the app's prefix) at `now` (epoch ms).
    `access`: `Checked` on the Worker; `LOCAL` only from the local host's bridge."""
    prefix = prefix_of(app)
    rest = request.path[len(prefix):] if request.path.startswith(prefix) else None
    if rest is None or (rest and not rest.startswith("/")):
        return respond(404, "not the console's\n", "text/plain; charset=utf-8")
    identity = await identify(request, access, now)
    if isinstance(identity, Refused):
        extra = {"www_authenticate": 'Bearer realm="tickwork console"'} if identity.status == 401 else {}
        return respond(identity.status, f"{identity.why}\n", "text/plain; charset=utf-8", **extra)
    said = csrf.opened(identity, request.query, now) if request.method != "POST" else None
    frame = pages.Frame(prefix, identity.who, csrf.token(identity, now), now, said=said,
                        sealed=lambda notice: csrf.sealed(identity, notice, now))
    route = rest.rstrip("/")
    if request.method == "POST":
        body = await request.body_within(BODY_MOST)
        if body is None:
            return respond(413, f"a console form is at most {BODY_MOST} bytes; nothing changed\n",
                           "text/plain; charset=utf-8")
        foreign = csrf.foreign(request, request.origin)
        form = replace(request, body=body, read=None).form()
        if foreign or not csrf.good(identity, form.get("csrf"), now):
            why = foreign or "its form token is missing or stale: reload the page and try again"
            return respond(403, pages.answer(frame, "Refused", f"Nothing changed: {why}.", frame.href(""), True))
        return await _act(db, frame, route, form, app)
    if request.method not in ("GET", "HEAD"):
        return respond(405, "the console takes GET and POST\n", "text/plain; charset=utf-8", allow="GET, HEAD, POST")
    if route == "/console.css":
        return respond(200, pages.CSS, "text/css; charset=utf-8")
    handler = PAGES.get(route)
    if handler is not None:
        frame = replace(frame, route=route, query=tuple(request.query.items()))
    if handler is None:
        return respond(404, pages.answer(frame, "Not found", "The console has no such page.", frame.href(""), True))
    try:
        status, body = await handler(db, app, frame, request.query)
    except Unwritten as why:
        return respond(400, pages.answer(frame, "Bad request", str(why), frame.href(route), True))
    return respond(status, body)


# -- pages --------------------------------------------------------------------------------------

async def _overview(db, app, frame, query):
    since = frame.now - DAY
    found = await ConsoleStore(db).overview(since, charted_since=(frame.now // HOUR - 7 * 24) * HOUR,
                                            grid=(pages.GRID_ROWS, pages.GRID_CELLS))
    latest = await deploys.page_of(db, None, deploys.OVERVIEW_MOST + 1)
    after = await Deploys(db).runs_after(latest[:deploys.OVERVIEW_MOST], AROUND, deploys.AFTER_READ)
    lags = lag_view(await lags_since(db, frame.now - LAG_WINDOW), LAG_WINDOW)
    return 200, pages.overview(frame, found, since, latest, after, lags)


async def _schedules(db, app, frame, query):
    look_for = _text(query, "q")
    searched_in = _one_of(query, "in", SEARCHED_IN, "name")
    field = searched_in if look_for else None
    pattern = _glob(look_for) if field in ("name", "action", "label") else look_for
    state = _one_of(query, "state", STATES, "live")
    declared, handed, searched_to = await ConsoleStore(db).schedules(field, pattern, state, _text(query, "after"), PAGE)
    shown = {key: value for key, value in query.items() if key in ("q", "in", "state", "after")}
    entries = {s.name: entry_of_schedule(s) for s in app.schedules}
    return 200, pages.schedules(frame, declared, handed[:PAGE], len(handed) > PAGE, shown, searched_to=searched_to,
                                entries=entries)


_glob = filters.as_glob  # what a person types as a GLOB: itself where it has wildcards, else a prefix


async def _schedule(db, app, frame, query):
    name = _text(query, "name") or ""
    before = _keys(query, "before", int, int, str)
    found = await ConsoleStore(db).schedule(name, before, PAGE, frame.now)
    declared = next((s for s in app.schedules if s.name == name), None)
    back = frame.href("/schedule", name=name)
    more = len(found.runs) > PAGE
    del found.runs[PAGE:]
    span = span_of(found.runs)
    around = await Deploys(db).around(*span) if span else []
    body = pages.schedule(frame, name, found, entry_of_schedule(declared), _next_due(found.state, declared), more,
                          back, around)
    return (200 if found.state is not None else 404), body


def _next_due(state: dict | None, declared) -> list[int]:
    """The schedule's next due times, as its timing places them from its state row's due time."""
    if state is None or state.get("removed_at") is not None:
        return []
    try:
        timing = declared.timing if declared is not None else timing_of(json.loads(state["timing"]))
        due, found = int(state["due_at"]), []
        if state.get("retry_attempt") is not None and state.get("retry_next") is not None:
            found.append(due)  # a pending retry; the due times go on from the one it put aside
            put_aside = int(state["retry_next"])
            due = put_aside if put_aside > due else timing.following(due, due)
        while (due := timing.called_from(due)[0]) < NEVER and len(found) < NEXT_DUE:
            found.append(due)  # a calendar's skip dates left out, a date at a step, said beside them
            due = timing.following(due, due)
        return found
    except (KeyError, TypeError, ValueError):
        return [int(state["due_at"])] if int(state["due_at"]) < NEVER else []


async def _runs(db, app, frame, query):
    runs = filters.run_filter(query, frame.now)
    found = await filtered_runs(db, runs, _keys(query, "before", int, str) or LATEST, PAGE + 1)
    shown = filters.shown(query, filters.RUN_KEYS)
    return 200, runs_page.runs(frame, found.rows[:PAGE], len(found.rows) > PAGE, shown, found.stop)


async def _deliveries(db, app, frame, query):
    deliveries = filters.delivery_filter(query, frame.now)
    found = await filtered_deliveries(db, deliveries, _keys(query, "after", int, str) or (-1.0, ""), DELIVERIES + 1)
    shown = filters.shown(query, filters.DELIVERY_KEYS)
    back = frame.href("/deliveries", **{**shown, "after": query.get("after") or None})
    on = {**shown, "after": query["after"]} if query.get("after") else shown  # the page a bulk form takes from
    return 200, deliveries_page.deliveries(frame, found.rows[:DELIVERIES], found.log, on, back,
                                           len(found.rows) > DELIVERIES, found.stop)


async def _run(db, app, frame, query):
    """One run whole: its record, the end of its traceback, every attempt of its due time, what it
    emitted with each delivery's state, what it covered and who asked for it."""
    id = _text(query, "id") or ""
    found = await RunStore(db).run(id)
    return (200 if found.run is not None else 404), run_page(frame, id, found)


async def _log(db, app, frame, query):
    rows = await ConsoleStore(db).log(_keys(query, "before", int, str), PAGE)
    return 200, pages.log(frame, rows[:PAGE], len(rows) > PAGE)


async def _deploys(db, app, frame, query):
    """Each deploy that changed the declared schedules, the newest first: when it was noticed, the
    Worker's version, and what it added, removed and changed."""
    before = _keys(query, "before", int)  # a deploy's number, as the page before wrote it
    rows = await deploys.page_of(db, None if before is None else before[0], PAGE + 1)
    return 200, deploys.deploys_page(frame, rows[:PAGE], len(rows) > PAGE)


PAGES = {"": _overview, "/schedules": _schedules, "/schedule": _schedule, "/runs": _runs,
         "/deliveries": _deliveries, "/log": _log, "/run": _run, "/deploys": _deploys}


def _one_of(query: dict, name: str, values: tuple, default: str | None) -> str | None:
    """The query's `name`, one of `values`; `default` where it is not given (or empty)."""
    value = query.get(name)
    if not value:
        return default
    if value not in values:
        raise Unwritten(name, value, "one of " + ", ".join(values))
    return value


def _text(query: dict, name: str) -> str | None:
    """The query's `name`, text typed or a name; None where it is not given (or empty)."""
    value = query.get(name) or None
    if value is not None and len(value) > LONGEST_TEXT:
        raise Unwritten(name, value[:40] + "...", f"at most {LONGEST_TEXT} characters long")
    return value


def _keys(query: dict, name: str, *types) -> tuple | None:
    """A page's keyset bound, `1767600000000:abc`, read as `types`; None where none is given."""
    text = query.get(name)
    if not text:
        return None
    parts = text.split(":", len(types) - 1)
    if len(parts) != len(types) or not all(kind is str or CURSOR_TIME.fullmatch(part)
                                           for kind, part in zip(types, parts, strict=True)):
        raise Unwritten(name, text, "a page's bound as the console writes it (" + ":".join(
            "<epoch ms>" if kind is int else "<id>" for kind in types) + ")")
    return tuple(kind(part) for kind, part in zip(types, parts, strict=True))


# -- actions ------------------------------------------------------------------------------------

async def _act(db, frame, route, form, app=None) -> Response:
    back = form.get("back") or ""
    if (not back.startswith(frame.prefix + "/") and back != frame.prefix) or not back.isprintable():
        back = frame.href("")  # a page of the console's own, fit for the 303's Location
    kind, _, verb = route.lstrip("/").partition("/")
    if route in bulk_actions.ROUTES:
        try:
            bulk = await bulk_actions.act(db, frame, route, form, back)
        except filters.Refused as refused:
            return respond(400, pages.answer(frame, "Refused", f"Nothing changed: {refused}.", back, True))
        return see_other(frame, back, bulk.said) if bulk.said is not None else respond(bulk.status, bulk.body)
    if route == "/schedule/backfill":
        return await _backfill(db, frame, form, back, app)
    if route == "/backfill/cancel":
        return await _cancel_backfill(db, frame, form.get("id") or "", back)
    if route == "/run/remake":
        return await _remake(db, frame, form.get("id") or "", back)
    if route == "/run/terminate":
        return await terminated(db, frame, form.get("id") or "", back)
    if kind == "schedule" and verb in SCHEDULE_VERBS:
        key, what = form.get("name") or "", "schedule"
        change = await OperatorStore(db).change(SCHEDULE_VERBS[verb], key, frame.who, frame.now)
    elif kind == "delivery" and verb in DELIVERY_VERBS:
        key, what = form.get("id") or "", "delivery"
        change = await OperatorStore(db).change(verb, key, frame.who, frame.now)
    else:
        return respond(404, pages.answer(frame, "Not found", "The console has no such action.", back, True))
    if change.row is None:
        return respond(404, pages.answer(frame, "Not found", f"There is no {what} {key}; nothing changed.", back, True))
    if not change.changed:
        why = _why_unchanged(verb, change.row)
        return respond(409, pages.answer(frame, "Nothing changed", f"{key}: {why}; nothing changed.", back, True))
    done = {
        "pause": "paused: from the next tick each due time is skipped (recorded `paused`)",
        "resume": "resumed: it runs again from the next tick, on the timing it kept",
        "run": "a run by hand is asked for: the next tick makes it",
        "retry": "pending again: the next tick's sweep sends it",
        "dismiss": "dismissed: it is never sent again",
        "cancel": "cancelled" if what == "delivery" else "cancelled: no call is made for it again",
    }[verb]
    return see_other(frame, back, f"{key} {done} (logged as {frame.who}).")


def see_other(frame: pages.Frame, back: str, said: str) -> Response:
    """A change made: 303 See Other to the page the form came from, which shows what was said
    (`said=`, sealed: csrf.sealed), so a reload reads that page again rather than posting the
    change again."""
    location = back + ("&" if "?" in back else "?") + urlencode(frame.sealed(said[:LONGEST_TEXT]))
    return respond(303, "", "text/plain; charset=utf-8", location=location)


async def _remake(db, frame, id: str, back) -> Response:
    """The due time of the failed run `id` made again by the next tick, as the operator's run."""
    try:
        asked = await remake(db, id, frame.who, frame.now)
    except ScheduleError as refused:
        status, title = (404, "Not found") if refused.code == UNKNOWN else (409, "Nothing changed")
        return respond(status, pages.answer(frame, title, f"{refused.code}: {refused.message}; nothing changed.",
                                            back, True))
    return see_other(frame, back, f"{asked.words(frame.who)} (logged as {frame.who}).")


def _why_unchanged(verb: str, row: dict) -> str:
    if row.get("removed_at") is not None:
        return "it has ended" if row.get("ended") else "it is no longer declared"
    if "state" in row and "event" in row:
        return f"the delivery is {row['state']}"
    if verb == "run":
        return "it is paused: resume it first" if row["paused"] else "a run asked for by hand already waits"
    if verb == "cancel":
        return "only a schedule handed over at run time can be cancelled"
    return f"it is already {'paused' if row['paused'] else 'running on its timing'}"


async def _backfill(db, frame, form, back, app=None) -> Response:
    """A backfill as `tickwork backfill NAME --from --to` asks for it, with its checks; `dry`,
    only the listing of what it would make (as --dry-run)."""
    name, start, end = form.get("name") or "", form.get("from") or "", form.get("to") or ""
    store = OperatorStore(db)
    try:
        declared = next((s for s in (app.schedules if app is not None else ()) if s.name == name), None)
        skip = dict(getattr(declared.timing, "skip", ())) if declared is not None else None
        plan = await backfill.plan(store, frame.now, name, _instant("from", start), _instant("to", end), ("from", "to"),
                                   skip)
    except backfill.Refused as refused:
        return respond(400, pages.answer(frame, "Refused", f"Nothing changed: {refused}.", back, True))
    if plan is None:
        return respond(404, pages.answer(frame, "Not found", f"There is no schedule {name}; nothing changed.", back,
                                         True))
    if form.get("dry"):
        return respond(200, pages.backfill_listed(frame, plan, start, end, back))
    if not plan.todo and not plan.more:
        return see_other(frame, back, f"{words.backfill_words(plan)}; nothing to make, so no backfill was asked for.")
    change = await store.backfill(name, plan.start, plan.end, frame.who, frame.now)
    if not change.changed:
        return respond(409, pages.answer(frame, "Nothing changed", f"{name} was removed meanwhile: there is nothing "
                                         "to backfill; nothing changed.", back, True))
    assert change.row is not None  # a backfill asked for returns its row
    return see_other(frame, back, f"{words.backfill_words(plan)}; {words.backfill_asked_words(change.row['backfill'])} "
                           f"(logged as {frame.who}).")


def _instant(what: str, text: str) -> int | None:
    if not text:
        return None
    moment = instant(text.strip())
    if moment is None:
        raise backfill.Refused("backfill.range_invalid", f"{what}: `{text}` is no time: write e.g. "
                                                         "2026-01-05T09:15Z (UTC unless it says) or epoch milliseconds")
    return moment


async def _cancel_backfill(db, frame, id: str, back) -> Response:
    change = await OperatorStore(db).cancel_backfill(id, frame.who, frame.now)
    if change.row is None:
        return respond(404, pages.answer(frame, "Not found", f"backfill.unknown: there is no backfill {id}; "
                                         "nothing changed.", back, True))
    if not change.changed:
        return respond(409, pages.answer(frame, "Nothing changed", f"backfill.not_pending: backfill {id} is "
                                         f"{change.row['state']}: only a pending backfill can be cancelled; "
                                         "nothing changed.", back, True))
    return see_other(frame, back, f"{words.backfill_cancelled_words(change.row)} (logged as {frame.who}).")
