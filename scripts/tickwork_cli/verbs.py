"""What each verb reads or changes, and what it answers: data for --json, lines for a person.

Every verb takes the command's clock (`now`, epoch ms) as an argument.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from tickwork.backfill import DRY_RUN_MOST, Refused
from tickwork.backfill import plan as plan_backfill
from tickwork.operator_store import FROM_STATES, SEARCHED, OperatorStore
from tickwork.schedule_store import ScheduleStore, holds_lease, out_of_date
from tickwork.times import MINUTE, NEVER
from tickwork.operating.words import ahead_of_due as _ahead_of_due
from tickwork.operating.words import asked_words as _asked_words
from tickwork.operating.words import attempts_of as _attempts_of
from tickwork.operating.words import (
    backfill_asked_words, backfill_cancelled_words, backfill_state_words, backfill_words,
)
from tickwork.operating.words import occurrence_words
from tickwork.operating.health import TICKS_STOPPED_AFTER
from tickwork.operating.words import call_words as _call_words
from tickwork.operating.words import clip as _clip
from tickwork.operating.words import did as _did
from tickwork.operating.words import due_reason as _due_reason
from tickwork.operating.words import events_of as _events
from tickwork.operating.words import gap_words as _gap_words
from tickwork.operating.words import last_run_words as _last_run_words
from tickwork.operating.words import missed_words as _missed_words
from tickwork.operating.words import retry_words as _retry_words
from tickwork.operating.words import rule as _rule
from tickwork.operating.words import run_settings_words as _run_settings_words
from tickwork.operating.words import settings_of as _settings_of
from tickwork.operating.words import what_happened as _what_happened

STOPPED_AFTER = TICKS_STOPPED_AFTER
CLOCK_SLACK = MINUTE  # how far ahead of the command's clock a tick may be and still be its own

from . import words
from .labels import label_and_input, labelled
from .manifest import consumer_tries, declared
from .words import columns, iso, printable, relative, when


class OperatorError(Exception):
    """One line for stderr: an unknown name, a change that cannot be made; nothing changed."""


@dataclass
class Answer:
    data: object
    lines: list[str] = field(default_factory=list)
    code: int = 0


def _number(value) -> int | None:
    return None if value is None else int(value)


def _instant(ms, now: int) -> dict | None:
    ms = _number(ms)
    if ms is None:
        return None
    return {"ms": ms, "utc": iso(ms), "relative": relative(ms, now)}


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Columns lined up as a terminal shows them: each cell escaped first, then measured."""
    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(columns(h), *(columns(r[k]) for r in rows)) for k, h in enumerate(headers)]
    line = lambda cells: "  ".join(c + " " * (w - columns(c)) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [line(headers), *(line(r) for r in rows)]


def _page(rows: list, limit: int, cursor) -> tuple[list, object]:
    """A page of the `limit + 1` rows read (the one more says a next page has some), and the
    cursor of the page after it: `cursor` of its last row, None on the last page."""
    return rows[:limit], cursor(rows[limit - 1]) if len(rows) > limit else None


def _overdue(row: dict, manifest: dict | None) -> int | None:
    if row.get("timing"):
        try:
            return json.loads(row["timing"]).get("overdue_ms")
        except (ValueError, AttributeError):
            return None
    return ((manifest or {}).get(row["name"]) or {}).get("overdue_ms")


def _form(row: dict) -> str:
    return row.get("form") or f"every {int(row['every_ms'])}"


def _last_tick_line(app: dict | None, now: int) -> str:
    last = _number((app or {}).get("last_tick"))
    if last is None:
        return "last tick: none yet"
    ahead = (", ahead of this command's clock: ticks by hand into the future, or a clock behind"
             if _ahead(last, now) else "")
    return f"last tick {when(last)} ({relative(last, now)}{ahead})"


def _ahead(last_tick: int, now: int) -> bool:
    """A tick recorded later than the clock allows: ticks by hand into the future, or a clock
    behind the one that ticked."""
    return last_tick - now > CLOCK_SLACK


# -- schedules ---------------------------------------------------------------------------------

STATES = ("active", "paused", "running", "removed", "failing", "declared", "handed-over")
KINDS = ("every", "calendar", "pulse", "once")


def _schedule_item(row: dict, now: int, manifest: dict | None) -> dict:
    form = _form(row)
    removed = _number(row.get("removed_at"))
    due = _number(row["due_at"])
    lease = None
    if holds_lease(row):
        lease = {"run": row["lease_run"], "started": _instant(row.get("lease_started"), now),
                 "until": _instant(row.get("lease_until"), now),
                 "expired": _number(row.get("lease_until")) is not None and int(row["lease_until"]) <= now}
    last = None
    if row.get("last_run"):
        at = _number(row.get("last_tick_at"))  # the tick's time: clock.now inside the run
        last = {"run": row["last_run"], "outcome": row["last_outcome"], "code": row.get("last_code"),
                "due": _instant(row.get("last_due"), now), "tick": _instant(at, now),
                "by_hand": row.get("last_by_hand")}
    requested = None
    if row.get("run_requested_at") is not None:
        requested = {"asked": _instant(row["run_requested_at"], now), "by": row.get("run_requested_by")}
    return {
        "name": row["name"],
        "handed_over": row.get("action") is not None,
        "action": row.get("action"),
        "kind": words.kind_of(form),
        "timing": words.timing(form, _overdue(row, manifest)),
        "form": form,
        "next_due": None if removed is not None or due >= NEVER else _instant(due, now),
        "paused": bool(row["paused"]),
        "removed": _instant(removed, now),
        "ended": row.get("ended"),
        "running": lease,
        "last_run": last,
        "run_requested": requested,
    }


def _state_words(item: dict) -> str:
    notes = []
    if item["removed"]:
        what = f"ended ({item['ended']})" if item["ended"] else "removed"
        notes.append(f"{what} {item['removed']['relative']}")
    if item["paused"]:
        notes.append("paused")
    if item["running"]:
        lease = item["running"]
        started = lease["started"]["relative"] if lease["started"] else "?"
        until = lease["until"]
        verb = "lapsed" if lease["expired"] else "until"
        notes.append(f"running since {started}, lease {verb} {when(until['ms'])} ({until['relative']})")
    if item["run_requested"]:
        notes.append(f"run asked for by {item['run_requested']['by']}")
    return "; ".join(notes) or "-"


async def schedules(store: OperatorStore, now: int, project: Path | None, name: str | None = None,
                    kind: str | None = None, state: str | None = None, after: str = "", limit: int = 100,
                    show_input: bool = False) -> Answer:
    """A page of schedules in name order, after the name `after`: the filters are the page's
    statement's, so a page reads only what it shows."""
    kind = "every" if kind == "schedule" else kind
    app, rows, searched_to = await store.schedules_page(after, name, kind, state, limit + 1)  # one more: a next page?
    rows, more = _page(rows, limit, lambda row: row["name"])
    more = more or searched_to  # a filter looks through SEARCHED names a page: the next page looks on from there
    manifest = declared(project) if project else None
    items = [{**_schedule_item(row, now, manifest), **label_and_input(row, show_input)} for row in rows]
    data = {"now": _instant(now, now), "last_tick": _instant((app or {}).get("last_tick"), now), "schedules": items,
            "next_after": more, "searched_to": searched_to}
    lines = [_last_tick_line(app, now)]
    for title, group in (("Declared", [i for i in items if not i["handed_over"]]),
                         ("Handed over at run time", [i for i in items if i["handed_over"]])):
        if not group:
            continue
        table = []
        for i in group:
            due = i["next_due"]
            last = i["last_run"]
            last_words = "-"
            if last:
                last_words = last["outcome"] + (f" ({last['code']})" if last["code"] else "")
                last_words += f" {last['tick']['relative']}" if last["tick"] else ""
            table.append([i["name"], i["kind"], i["timing"],
                          f"{when(due['ms'])} ({due['relative']})" if due else "-", last_words, _state_words(i)])
        headers = ["NAME", "KIND", "TIMING", "NEXT DUE", "LAST RUN", "STATE"]
        if group[0]["handed_over"]:
            headers.insert(1, "LABEL")
            for cells, i in zip(table, group):
                cells.insert(1, _clip(i["label"], 30))
        if show_input and group[0]["handed_over"]:
            headers.append("INPUT")
            for cells, i in zip(table, group):
                cells.append(_clip(json.dumps(i["input"], ensure_ascii=False, sort_keys=True), 60))
        lines += ["", f"{title}:"]
        lines += ["  " + line for line in _table(headers, table)]
    if not items:
        lines.append("no schedules" + (" match" if name or kind or state or after else " yet: no tick has seen one"))
    if searched_to and more == searched_to:
        lines += ["", f"looked through {SEARCHED:,} schedules, as far as {searched_to}: a filter looks through "
                      f"that many a page"]
    if more:
        lines += ["", f"more: tickwork schedules --after {more} (with the same filters)"]
    return Answer(data, lines)


# -- history -----------------------------------------------------------------------------------

def _run_item(run: dict, now: int) -> dict:
    started, ended = _number(run.get("started_at")), _number(run.get("ended_at"))
    return {
        "id": run["id"], "due": None if _ahead_of_due(run) else _instant(run["due_at"], now),
        "tick": _instant(run["tick_at"], now),
        "started": _instant(started, now), "ended": _instant(ended, now),
        "took_ms": ended - started if started is not None and ended is not None else None,
        "outcome": run["outcome"], "code": run.get("code"), "kind": run.get("kind"), "detail": run.get("detail"),
        "at": _instant(run.get("at"), now), "dst": run.get("dst"), "n": _number(run.get("n")),
        "i": _number(run.get("i")), "by_hand": run.get("by_hand"), "attempt": _number(run.get("attempt")) or 1,
        "items": _number(run.get("items")), "events": _events(run), "trace": run.get("trace"),
        "backfill": run.get("backfill"), "covers": _covers(run, now),
    }


def _covers(run: dict, now: int) -> dict | None:
    """The occurrences a run or skip covers, where its tick found several owed."""
    if run.get("covers") is None:
        return None
    return {"count": int(run["covers"]), "at_least": bool(run.get("covers_more")),
            "first": _instant(run["covers_first"], now), "last": _instant(run["covers_last"], now)}


def _due_words(item: dict) -> str:
    return when(item["due"]["ms"]) if item["due"] else "by hand"


def _took_words(item: dict) -> str:
    return words.short(item["took_ms"]) if item["took_ms"] is not None else ""


def _log_item(row: dict, now: int) -> dict:
    return {"id": row["id"], "logged": _instant(row["at"], now), "who": row["who"], "verb": row["verb"],
            "schedule": row.get("schedule"), "delivery": row.get("delivery"), "detail": row.get("detail")}


async def history(store: OperatorStore, now: int, name: str, since: int | None = None, failed: bool = False,
                  limit: int = 20, show_input: bool = False) -> Answer:
    state, runs, log = await store.history(name, since, failed, limit)
    if state is None:
        raise OperatorError(f"no schedule named `{name}`: `tickwork schedules` lists them")
    items = [_run_item(run, now) for run in runs]
    logged = [] if failed else [_log_item(row, now) for row in log]
    data = {"schedule": name, "runs": items, "operator_log": logged}
    lines = [f"{name}: {len(items)} {'failed run' if failed else 'run'}{'' if len(items) == 1 else 's'}"
             + (f" since {when(since)}" if since is not None else "") + ", newest first"]
    if items:
        table = []
        for i, run in zip(items, runs):
            table.append([
                _due_words(i), when(i["started"]["ms"]) if i["started"] else "-", _took_words(i), i["outcome"],
                i["code"] or "", i["kind"] or "", str(i["attempt"]), _call_words(run), _did(run),
                _asked_words(i), _missed_words(run, name), _clip(i["detail"], 60),
            ])
        lines += _table(["DUE", "STARTED", "TOOK", "OUTCOME", "CODE", "KIND", "ATTEMPT", "CALL", "DID", "ASKED FOR",
                         "MISSED", "DETAIL"], table)
    if logged:
        lines += ["", "Operator log:"]
        lines += [f"  {when(i['logged']['ms'])}  {i['who']} {i['verb']}" + (f" ({i['detail']})" if i["detail"] else "")
                  for i in logged]
    labelled(data, lines, state, show_input)
    return Answer(data, lines)


# -- why ---------------------------------------------------------------------------------------

async def why(store: OperatorStore, now: int, name: str, project: Path | None, show_input: bool = False) -> Answer:
    state, last, lease, app, gaps = await store.explain(name)
    manifest = declared(project) if project else None
    entry = (manifest or {}).get(name)
    if state is None and entry is None:
        raise OperatorError(f"no schedule named `{name}`: `tickwork schedules` lists them")
    if state is not None and state.get("action") is not None:
        where = f"handed over at run time: calls {state['action']}"
    elif entry is not None:
        where = entry.get("source") or "unknown"
    elif manifest is None:
        where = "unknown: the project has no build/app/tickwork_manifest.py (tickwork build writes it)"
    else:
        where = "not declared in the current build (build/app/tickwork_manifest.py)"
    last_tick = _number((app or {}).get("last_tick"))
    ticks = _last_tick_line(app, now)
    if state is None:
        never = "never seen by a tick yet: the first tick after the deploy that declares it seeds it"
        data = {"schedule": name, "declared": where, "rule": None, "next_due": None, "next_due_why": never,
                "last_due": None, "last_due_what": never, "last_tick": _instant(last_tick, now)}
        return Answer(data, [name, f"  declared   {where}", f"  next due   {never}", f"  {ticks}"])

    form = _form(state)
    overdue = _overdue(state, manifest)
    settings = _settings_of(state, entry)
    attempts = _attempts_of(settings)
    rule = f"{words.timing(form, overdue)}: {_rule(form, state, overdue)}"
    if run_settings := _run_settings_words(settings):
        rule += f"; {run_settings}"
    due = int(state["due_at"])
    removed = _number(state.get("removed_at"))
    notes: list[str] = []
    # Due, and no tick since, for longer than ticks may pause: ticks stopped before reaching it.
    unreached = (removed is None and due < NEVER and due <= now and (last_tick is None or last_tick < due)
                 and now - (last_tick or 0) > STOPPED_AFTER)
    if removed is not None:
        next_due = None
        if state.get("ended"):
            reason = f"none: it ended ({state['ended']}) at {when(removed)}"
        else:
            reason = (f"none: no longer declared since {when(removed)} (a deploy removed it); "
                      f"its state and runs are kept")
    elif due >= NEVER:
        next_due, reason = None, "never: nothing is left to call"
    else:
        next_due = due
        reason = f"{when(due)} ({relative(due, now)}): {_due_reason(form, due, last is not None)}"
        if state.get("retry_attempt") is not None:
            reason = f"{when(due)} ({relative(due, now)}): {_retry_words(state, attempts)}"
        if unreached:
            reason += (f"; not reached: ticks stopped, the last tick was "
                       f"{when(last_tick) + ' (' + relative(last_tick, now) + ')' if last_tick else 'never'}")
        elif due <= now:
            reason += "; due now: the next tick makes it"
        if state["paused"]:
            notes.append("paused: the tick that finds it due skips it (recorded `paused`) and moves it on "
                         "along its grid; `tickwork resume` lets it run again")
    lease_until = _number(state.get("lease_until"))
    if holds_lease(state):
        started = when(_number((lease or {}).get("started_at")))
        if lease_until is not None and lease_until <= now:
            notes.append(f"the run {state['lease_run']} (started {started}) held its lease past "
                         f"{when(lease_until)}: the next tick records it failed `lease_expired`")
        else:
            notes.append(f"a run ({state['lease_run']}, started {started}) holds the lease until "
                         f"{when(lease_until)} ({relative(lease_until, now)})")
    if state.get("run_requested_at") is not None:
        notes.append(f"a run asked for by hand by {state.get('run_requested_by')} at "
                     f"{when(int(state['run_requested_at']))} waits for the next tick")

    if unreached:
        last_due = due
        what = (f"not reached because ticks stopped: the last tick was "
                f"{when(last_tick) if last_tick else 'never'}"
                + (f" ({relative(last_tick, now)})" if last_tick else ""))
        if last is not None:
            what += f"; before that, {when(int(last['due_at']))}: {_what_happened(last, gaps)}"
    elif last is not None:
        last_due = None if _ahead_of_due(last) else int(last["due_at"])
        what = _last_run_words(last, state, gaps, attempts)
    else:
        last_due = None
        what = (f"none yet: first seen by the tick at {when(int(state['first_tick']))}"
                + (f", first due at {when(due)}" if next_due is not None else ""))
    gap_items = [{"from": _instant(g["from_tick"], now), "to": _instant(g["to_tick"], now)} for g in gaps]
    data = {
        "schedule": name, "declared": where, "rule": rule, "next_due": _instant(next_due, now),
        "next_due_why": reason, "notes": notes, "last_due": _instant(last_due, now), "last_due_what": what,
        "last_run": _run_item(last, now) if last else None, "paused": bool(state["paused"]),
        "last_tick": _instant(last_tick, now), "gaps": gap_items, "attempts": attempts,
        "next_attempt": (None if state.get("retry_attempt") is None or removed is not None else
                         {"attempt": int(state["retry_attempt"]), "at": _instant(due, now),
                          "for_due": _instant(int(state["retry_due"]), now)}),
    }
    lines = [name, f"  declared   {where}", f"  rule       {rule}", f"  next due   {reason}"]
    lines += [f"  note       {note}" for note in notes]
    if last_due is None and last is not None:  # a run by hand, before any due time
        lines.append(f"  last run   {what}")
    else:
        lines.append(f"  last due   {when(last_due) + ': ' if last_due is not None else ''}{what}")
    lines.append(f"  {ticks}")
    if gaps:
        lines.append(f"  gaps       {_gap_words(gaps[0])}" + (f" and {len(gaps) - 1} before" if len(gaps) > 1 else ""))
    labelled(data, lines, state, show_input)
    return Answer(data, lines)


# -- pause, resume, run ------------------------------------------------------------------------

async def change_schedule(store: OperatorStore, now: int, verb: str, name: str, who: str) -> Answer:
    change = await store.change(verb, name, who, now)
    row = change.row
    if row is None:
        raise OperatorError(f"no schedule named `{name}`: `tickwork schedules` lists them")
    if not change.changed:
        if row.get("removed_at") is not None:
            what = f"ended ({row['ended']})" if row.get("ended") else "no longer declared"
            raise OperatorError(f"`{name}` is {what} since {when(int(row['removed_at']))}: "
                                f"there is nothing to {verb}")
        if verb == "run" and row["paused"]:
            raise OperatorError(f"`{name}` is paused and a paused schedule's lease is never taken: "
                                f"`tickwork resume {name}` first")
    due = int(row["due_at"])
    data = {"verb": verb, "schedule": name, "changed": change.changed, "who": who, "logged": _instant(now, now),
            "paused": bool(row["paused"]), "next_due": _instant(due, now)}
    if verb == "run":
        data["run_requested"] = {"asked": _instant(row.get("run_requested_at"), now), "by": row.get("run_requested_by")}
    if not change.changed:
        if verb == "run":
            line = (f"a run of {name} asked for by {row.get('run_requested_by')} at "
                    f"{when(_number(row.get('run_requested_at')))} already waits for the next tick; nothing changed")
        else:
            line = f"{name} is already {'paused' if row['paused'] else 'running on its timing'}; nothing changed"
        return Answer(data, [line])
    line = {
        "pause": (f"paused {name}: from the next tick, each due time is skipped (recorded `paused`) and its "
                  f"timing kept; next due {when(due)} ({relative(due, now)})"),
        "resume": (f"resumed {name}: it runs again from the next tick, on the timing it kept; "
                   f"next due {when(due)} ({relative(due, now)})"),
        "run": f"asked for a run of {name}: the next tick makes it, as a run by hand, moving no due time",
    }[verb]
    return Answer(data, [line + f" (logged as {who})"])


# -- deliveries --------------------------------------------------------------------------------

def _delivery_item(row: dict, now: int, log: list[dict], tries: dict[str, int]) -> dict:
    # Only the app's own consumer fails a delivery, once the queue's tries of its last send are spent.
    failed_after = tries.get(row["queue"]) if row["state"] == "failed" else None
    return {
        "id": row["id"], "state": row["state"], "event": row["event"], "event_name": row["event_name"],
        "queue": row["queue"], "sends": int(row["attempts"]), "next_send": _instant(row.get("next_attempt_at"), now),
        "consumer_tries": failed_after,
        "lease_until": _instant(row.get("lease_until"), now), "last_error": row.get("last_error"),
        "body": row["body"], "body_length": int(row["body_length"]), "run": row.get("run"),
        "emitted": _instant(row["emitted_at"], now), "updated": _instant(row["updated_at"], now),
        "operator_log": [_log_item(entry, now) for entry in log if entry["delivery"] == row["id"]],
    }


async def deliveries(store: OperatorStore, now: int, every_state: bool = False, limit: int = 100,
                     project: Path | None = None) -> Answer:
    rows, log = await store.deliveries(every_state, limit)
    tries = consumer_tries(project) if project else {}
    items = [_delivery_item(row, now, log, tries) for row in rows]
    lines = [f"{len(items)} deliver{'y' if len(items) == 1 else 'ies'}"
             + ("" if every_state else " pending, failed or outcome_unknown")]
    for i in items:
        head = (f"{i['id']}  {i['state']}  {i['event_name']} -> {i['queue']}  sent {i['sends']} time"
                f"{'' if i['sends'] == 1 else 's'} to its queue, emitted {i['emitted']['relative']}")
        if i["consumer_tries"]:
            head += f", its consumer raised on all {i['consumer_tries']} tries of the last"
        if i["next_send"] and i["state"] in ("pending", "outcome_unknown"):
            head += f", sent again {i['next_send']['relative']}"
        lines += ["", head, f"    body   {_clip(i['body'], 100)}"]
        if i["last_error"]:
            lines.append(f"    error  {_clip(i['last_error'], 100)}")
        for entry in i["operator_log"]:
            lines.append(f"    log    {when(entry['logged']['ms'])} {entry['who']} {entry['verb']} ({entry['detail']})")
    return Answer({"deliveries": items}, lines)


async def change_delivery(store: OperatorStore, now: int, verb: str, id: str, who: str) -> Answer:
    change = await store.change(verb, id, who, now)
    row = change.row
    if row is None:
        raise OperatorError(f"no delivery `{id}`: `tickwork deliveries` lists them")
    if not change.changed:
        allowed = ", ".join(FROM_STATES[verb][:-1]) + f" or {FROM_STATES[verb][-1]}"
        raise OperatorError(f"delivery `{id}` is {row['state']}: only a {allowed} delivery can be {_done(verb)}")
    data = {"verb": verb, "delivery": id, "changed": True, "who": who, "logged": _instant(now, now),
            "state": row["state"]}
    line = {
        "retry": f"delivery {id} is pending again: the next tick's sweep sends it",
        "dismiss": f"dismissed delivery {id}: it is never sent again",
        "cancel": f"cancelled delivery {id}: it is never sent",
    }[verb]
    return Answer(data, [line + f" (logged as {who})"])


def _done(verb: str) -> str:
    return {"retry": "retried", "dismiss": "dismissed", "cancel": "cancelled"}[verb]


# -- backfill --------------------------------------------------------------------------------

def _backfill_item(row: dict, now: int) -> dict:
    return {"id": row["id"], "schedule": row["schedule"], "from": _instant(row["from_at"], now),
            "to": _instant(row["to_at"], now), "who": row["who"], "asked": _instant(row["requested_at"], now),
            "state": row["state"], "made": int(row["made"]), "next": _instant(row["next_at"], now),
            "ended": _instant(row.get("ended_at"), now)}


async def backfill(store: OperatorStore, now: int, name: str | None, start: int | None, end: int | None,
                   who: str, dry_run: bool = False) -> Answer:
    if name is None:
        raise OperatorError("backfill.schedule_missing: name the schedule (or an item's id) to backfill")
    try:
        plan = await plan_backfill(store, now, name, start, end)
    except Refused as refused:
        raise OperatorError(str(refused)) from None
    if plan is None:
        raise OperatorError(f"no schedule named `{name}`: `tickwork schedules` lists them")
    todo = plan.todo
    occurrences = [{"at": _instant(call.at, now), "n": call.n, "i": call.i, "dst": call.dst} for call in todo]
    data = {"verb": "backfill", "schedule": name, "from": _instant(start, now), "to": _instant(end, now),
            "dry_run": dry_run, "occurrences": occurrences, "made_already": plan.made_already,
            "listed_at_most": DRY_RUN_MOST if plan.more else None, "who": who, "changed": False}
    head = backfill_words(plan)
    if dry_run:
        lines = [head + ("; a backfill would make them, oldest first:" if todo else "; nothing to make")]
        lines += [f"  {occurrence_words(call)}" for call in todo]
        return Answer(data, lines)
    if not todo and not plan.more:
        return Answer(data, [head + "; nothing to make, so no backfill was asked for"])
    change = await store.backfill(name, start, end, who, now)
    if not change.changed:
        raise OperatorError(f"`{name}` was removed meanwhile: there is nothing to backfill")
    data.update(changed=True, backfill=change.row["backfill"])
    return Answer(data, [head + f"; {backfill_asked_words(change.row['backfill'])}; "
                         f"`tickwork backfill --cancel {change.row['backfill']}` stops it (logged as {who})"])


async def cancel_backfill(store: OperatorStore, now: int, backfill_id: str, who: str) -> Answer:
    change = await store.cancel_backfill(backfill_id, who, now)
    if change.row is None:
        raise OperatorError(f"backfill.unknown: no backfill `{backfill_id}`: `tickwork backfills` lists them")
    item = _backfill_item(change.row, now)
    if not change.changed:
        raise OperatorError(f"backfill.not_pending: backfill `{backfill_id}` is {item['state']}: only a pending "
                            f"backfill can be cancelled")
    data = {"verb": "cancel", "backfill": item, "changed": True, "who": who}
    return Answer(data, [f"{backfill_cancelled_words(change.row)} (logged as {who})"])


async def backfills(store: OperatorStore, now: int, name: str | None, limit: int = 20) -> Answer:
    items = [_backfill_item(row, now) for row in await store.backfills(name, limit)]
    lines = [f"{len(items)} backfill{'' if len(items) == 1 else 's'}, pending first"]
    if items:
        lines += _table(["ID", "SCHEDULE", "FROM", "TO", "WHO", "STATE", "MADE", "NEXT"], [
            [i["id"], i["schedule"], when(i["from"]["ms"]), when(i["to"]["ms"]), i["who"], backfill_state_words(i["state"]),
             str(i["made"]), when(i["next"]["ms"]) if i["state"] == "pending" else "-"] for i in items])
    return Answer({"backfills": items}, lines)


# -- status ------------------------------------------------------------------------------------

async def status(store: OperatorStore, now: int, threshold: int, binding: str = "DB",
                 where: str = "--remote") -> Answer:
    """The last tick, its age and the gaps; `binding` and `where` name the store in a mend."""
    app, gaps = await store.status()  # a database without tickwork's tables fails here, saying so
    problem = out_of_date(await ScheduleStore(store.db).schema(), binding, where)
    if problem:  # the Worker refuses to tick against these tables
        return Answer({"migration": problem}, [f"MIGRATION OUT OF DATE, NO TICKS: {problem}"], 1)
    last = _number((app or {}).get("last_tick"))
    disagrees = last is not None and _ahead(last, now)
    stopped = None if disagrees else last is None or now - last > threshold
    data = {"last_tick": _instant(last, now), "age_ms": None if last is None else now - last,
            "threshold_ms": threshold, "stopped": stopped, "clock_disagrees": disagrees,
            "gaps": [{"from": _instant(g["from_tick"], now), "to": _instant(g["to_tick"], now),
                      "recorded": _instant(g["recorded_at"], now)} for g in gaps]}
    if last is None:
        lines = ["TICKS STOPPED: no tick has been recorded yet"]
    elif disagrees:
        lines = [f"CLOCK AND STATE DISAGREE: the last tick recorded, {when(last)}, is {words.short(last - now)} "
                 f"after this command's clock ({when(now)}): ticks by hand into the future (tickwork tick TIME) "
                 f"or a clock that is behind. Whether ticks stopped cannot be told until the clock passes it; "
                 f"tickwork dev --fresh starts a local D1 again from empty"]
    elif stopped:
        lines = [f"TICKS STOPPED: the last tick was {when(last)}, {words.short(now - last)} ago, "
                 f"over the threshold of {words.short(threshold)}"]
    else:
        lines = [f"ticking: the last tick was {when(last)} ({relative(last, now)})"]
    if gaps:
        lines += ["", "Gaps in the ticks, latest first:"]
        lines += [f"  {_gap_words(g)}" for g in gaps]
    return Answer(data, lines, 0 if stopped is False else 1)
