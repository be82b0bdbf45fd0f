"""What each verb reads or changes, and what it answers: data for --json, lines for a person.

Every verb takes the command's clock (`now`, epoch ms) as an argument. What a schedule, a run or a
delivery is comes from tickwork.operating.views, which the console renders too.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from tickwork.operating import overlap_words, views
from tickwork.operating.health import TICKS_STOPPED_AFTER
from tickwork.operating.views import ScheduleView, entry_of_manifest, schedule_view
from tickwork.operating.words import ahead_of_due as _ahead_of_due
from tickwork.operating.words import asked_words as _asked_words
from tickwork.operating.words import call_words as _call_words
from tickwork.operating.words import clip as _clip
from tickwork.operating.words import did as _did
from tickwork.operating.jitter_words import history_note, jitter_note, runs_at
from tickwork.operating.words import due_reason as _due_reason
from tickwork.operating.words import events_of as _events
from tickwork.operating.words import gap_words as _gap_words
from tickwork.operating.words import last_run_words as _last_run_words
from tickwork.operating.words import missed_words as _missed_words
from tickwork.operating.words import number as _number
from tickwork.operating.words import retry_words as _retry_words
from tickwork.operating.retry_words import retry_of_settings, rule_text, run_retry_words, unretried_words
from tickwork.operating.words import what_happened as _what_happened
from tickwork.operating.concurrency_words import limit_words, waited_ms, waited_words, waiting_words
from tickwork.store.concurrency import under_way
from tickwork.operating.lag_words import LAG_WINDOW, lag_view
from tickwork.store.lags import lags_since
from tickwork.store.operator import SEARCHED, OperatorStore
from tickwork.store.facade import ScheduleStore
from tickwork.store.app_row import out_of_date
from tickwork.times import MINUTE, NEVER

from . import words
from .labels import label_and_input, labelled
from .manifest import declared
from .words import columns, iso, printable, relative, when

STOPPED_AFTER = TICKS_STOPPED_AFTER
CLOCK_SLACK = MINUTE  # how far ahead of the command's clock a tick may be and still be its own


class OperatorError(Exception):
    """One line for stderr: an unknown name, a change that cannot be made; nothing changed."""


@dataclass
class Answer:
    data: object
    lines: list[str] = field(default_factory=list)
    code: int = 0


def _instant(ms, now: int) -> dict | None:
    ms = _number(ms)
    if ms is None:
        return None
    return {"ms": ms, "utc": iso(ms), "relative": relative(ms, now)}


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    """Columns lined up as a terminal shows them: each cell escaped first, then measured."""
    rows = [[printable(cell) for cell in row] for row in rows]
    widths = [max(columns(h), *(columns(r[k]) for r in rows)) for k, h in enumerate(headers)]
    line = lambda cells: "  ".join(  # noqa: E731
        c + " " * (w - columns(c)) for c, w in zip(cells, widths, strict=True)).rstrip()
    return [line(headers), *(line(r) for r in rows)]


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

STATES = (*views.STATES, *views.ALIASES)  # the names, then the old words kept as aliases
KINDS = ("every", "calendar", "pulse", "once")


def _schedule_item(view: ScheduleView, now: int) -> dict:
    lease = view.lease
    running = None if lease is None else {
        "run": lease.run, "started": _instant(lease.started, now), "until": _instant(lease.until, now),
        "expired": lease.lapsed}
    last = None
    if view.last is not None:  # its tick's time: clock.now inside the run
        last = {"run": view.last.run, "outcome": view.last.outcome, "code": view.last.code,
                "due": _instant(view.last.due_at, now), "tick": _instant(view.last.tick_at, now),
                "by_hand": view.last.by_hand}
    requested = None
    if view.run_requested_at is not None:
        requested = {"asked": _instant(view.run_requested_at, now), "by": view.run_requested_by}
    return {
        "name": view.name,
        "handed_over": view.handed_over,
        "action": view.action,
        "kind": view.kind,
        "timing": view.timing,
        "form": view.form,
        "next_due": _instant(view.next_due, now),
        "paused": view.paused,
        "removed": _instant(view.removed_at, now),
        "ended": view.ended,  # the code, as ever: `cancelled`, `replaced`, `made_its_calls`, ...
        "ended_words": view.end,  # and in words: `replaced by <id>`, `made its 5 calls`
        "running": running,
        "last_run": last,
        "run_requested": requested,
        "retry": rule_text(retry) if (retry := retry_of_settings(view.settings)) else None,
    }


def _state_words(item: dict) -> str:
    notes = []
    if item["removed"]:
        what = f"ended ({item['ended_words']})" if item["ended"] else "removed"
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


def _schedules_table(group: list[dict], show_input: bool) -> list[str]:
    """One group of a page of schedules (declared, or handed over) as lines of a table."""
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
    if any(i["retry"] for i in group):  # the rule whole, as `retry:` writes it
        headers.insert(3, "RETRY")
        for cells, i in zip(table, group, strict=True):
            cells.insert(3, i["retry"] or "-")
    if group[0]["handed_over"]:
        headers.insert(1, "LABEL")
        for cells, i in zip(table, group, strict=True):
            cells.insert(1, _clip(i["label"], 30))
    if show_input and group[0]["handed_over"]:
        headers.append("INPUT")
        for cells, i in zip(table, group, strict=True):
            cells.append(_clip(json.dumps(i["input"], ensure_ascii=False, sort_keys=True), 60))
    return ["  " + line for line in _table(headers, table)]


async def schedules(store: OperatorStore, now: int, project: Path | None, name: str | None = None,
                    kind: str | None = None, state: str | None = None, after: str = "", limit: int = 100,
                    show_input: bool = False) -> Answer:
    """A page of schedules in name order, after the name `after`: the filters are the page's
    statement's, so a page reads only what it shows. `state`: one of views.STATES, or an alias."""
    kind = "every" if kind == "schedule" else kind
    page_state = views.page_word(state)
    app, rows, searched_to = await store.schedules_page(after, name, kind, page_state, limit + 1)  # one more: a next?
    rows, more = views.page(rows, limit, lambda row: row["name"])
    more = more or searched_to  # a filter looks through SEARCHED names a page: the next page looks on from there
    manifest = declared(project) if project else None
    items = [{**_schedule_item(schedule_view(row, now, entry_of_manifest((manifest or {}).get(row["name"]))), now),
              **label_and_input(row, show_input)} for row in rows]
    data = {"now": _instant(now, now), "last_tick": _instant((app or {}).get("last_tick"), now), "schedules": items,
            "next_after": more, "searched_to": searched_to}
    lines = [_last_tick_line(app, now)]
    for title, group in (("Declared", [i for i in items if not i["handed_over"]]),
                         ("Handed over at run time", [i for i in items if i["handed_over"]])):
        if group:
            lines += ["", f"{title}:", *_schedules_table(group, show_input)]
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
    view = views.run_view(run)
    return {
        "id": view.id, "due": _instant(view.due_at, now), "tick": _instant(view.tick_at, now),
        "started": _instant(view.started_at, now), "ended": _instant(view.ended_at, now), "took_ms": view.took_ms,
        "outcome": view.outcome, "code": view.code, "kind": run.get("kind"), "detail": run.get("detail"),
        "at": _instant(run.get("at"), now), "dst": run.get("dst"), "n": _number(run.get("n")),
        "i": _number(run.get("i")), "by_hand": run.get("by_hand"), "attempt": view.attempt,
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


def _detail_words(item: dict) -> str | None:
    """A run's detail, or, for one that waited behind the run before it or for its concurrency
    key, that it did."""
    if item["buffered_behind"] is not None and not item["detail"]:
        return overlap_words.behind_words(item["buffered_behind"]["ms"])
    if item.get("waited_for_key") and not item["detail"]:
        return item["waited_for_key"]["words"]
    if item.get("ran_beside") is not None and not item["detail"]:
        return overlap_words.beside_words(item["ran_beside"]["ms"])
    return item["detail"]


def _waited(run: dict, state: dict, gaps: list) -> dict | None:
    """A run that waited for its key: how long, the key, and in words; None for any other."""
    ms = waited_ms(run, state, gaps)
    if ms is None:
        return None
    return {"ms": ms, "key": state["concurrency_key"], "words": waited_words(run, state, gaps)}


def _attempt_cell(item: dict) -> str:
    """The attempt, with its place among the retries: `3: retry 2 of 8 after 2m (the ceiling)`."""
    place = item["retry"] if item["retry"] and not item["not_retried"] else ""
    return f"{item['attempt']}: {place}" if place else str(item["attempt"])


async def history(store: OperatorStore, now: int, name: str, since: int | None = None, failed: bool = False,
                  limit: int = 20, show_input: bool = False, project: Path | None = None) -> Answer:
    state, runs, log = await store.history(name, since, failed, limit)
    if state is None:
        raise OperatorError(f"no schedule named `{name}`: `tickwork schedules` lists them")
    entry = entry_of_manifest(((declared(project) if project else None) or {}).get(name))
    retry = retry_of_settings(schedule_view(state, now, entry).settings)
    behind = overlap_words.buffered_behind([dict(run) for run in runs])
    gaps = (await store.status())[1] if state.get("concurrency_key") is not None else []  # only for a keyed one
    beside = overlap_words.ran_beside([dict(run) for run in runs])
    items = [{**_run_item(run, now), "retry": run_retry_words(run, retry) or None,
              "not_retried": unretried_words(run, retry) or None,
              "buffered_behind": _instant(behind.get(run["id"]), now),
              "waited_for_key": _waited(dict(run), dict(state), gaps),
              "ran_beside": _instant(beside.get(run["id"]), now)} for run in runs]
    logged = [] if failed else [_log_item(row, now) for row in log]
    data = {"schedule": name, "runs": items, "operator_log": logged}
    lines = [f"{name}: {len(items)} {'failed run' if failed else 'run'}{'' if len(items) == 1 else 's'}"
             + (f" since {when(since)}" if since is not None else "") + ", newest first"]
    if history_note(name, state.get("form")):
        lines.append(f"  {history_note(name, state.get('form'))}")
    if items:
        table = []
        for i, run in zip(items, runs, strict=True):
            table.append([
                _due_words(i), when(i["started"]["ms"]) if i["started"] else "-", _took_words(i), i["outcome"],
                i["code"] or "", i["kind"] or "", _attempt_cell(i), _call_words(run), _did(run),
                _asked_words(i), _missed_words(run, name), _clip(_detail_words(i), 60),
            ])
        lines += _table(["DUE", "STARTED", "TOOK", "OUTCOME", "CODE", "KIND", "ATTEMPT", "CALL", "DID", "ASKED FOR",
                         "MISSED", "DETAIL"], table)
        lines += [f"  {_due_words(i)}: {i['not_retried']}" for i in items if i["not_retried"]]
    if logged:
        lines += ["", "Operator log:"]
        lines += [f"  {when(i['logged']['ms'])}  {i['who']} {i['verb']}" + (f" ({i['detail']})" if i["detail"] else "")
                  for i in logged]
    labelled(data, lines, state, show_input)
    return Answer(data, lines)


# -- why ---------------------------------------------------------------------------------------

def _declared_where(state: dict | None, entry: dict | None, manifest: dict | None) -> str:
    if state is not None and state.get("action") is not None:
        return f"handed over at run time: calls {state['action']}"
    if entry is not None:
        return entry.get("source") or "unknown"
    if manifest is None:
        return "unknown: the project has no build/app/tickwork_manifest.py (tickwork build writes it)"
    return "not declared in the current build (build/app/tickwork_manifest.py)"


def _unreached(view: ScheduleView, now: int, last_tick: int | None) -> bool:
    """Due, and no tick since, for longer than ticks may pause: ticks stopped before reaching it."""
    due = view.due_at
    return (view.removed_at is None and due < NEVER and due <= now and (last_tick is None or last_tick < due)
            and now - (last_tick or 0) > STOPPED_AFTER)


def _next_due_why(view: ScheduleView, state: dict, now: int, has_run: bool, last_tick: int | None,
                  waiting: str | None = None) -> str:
    """Why the next due time is the one it is: `when (relative): reason`, or why there is none."""
    due = view.due_at
    if view.removed_at is not None:
        if view.ended:
            return f"none: it ended ({view.end}) at {when(view.removed_at)}"
        return (f"none: no longer declared since {when(view.removed_at)} (a deploy removed it); "
                f"its state and runs are kept")
    if view.next_due is None:
        return "never: nothing is left to call"
    due = view.next_due  # past the calendar's skip dates, each said
    jittered = jitter_note(view.name, view.form, due) if state.get("retry_attempt") is None else ""
    reason = f"{when(due)} ({relative(due, now)}){jittered}: {_due_reason(view.form, due, has_run)}"
    if view.skipped:
        reason += f"; {', '.join(view.skipped)}"
    if state.get("retry_attempt") is not None:
        reason = f"{when(due)} ({relative(due, now)}): {_retry_words(state, view.attempts, dict(view.settings))}"
    if _unreached(view, now, last_tick):
        reason += (f"; not reached: ticks stopped, the last tick was "
                   f"{when(last_tick) + ' (' + relative(last_tick, now) + ')' if last_tick else 'never'}")
    elif due <= now < (held := (runs_at(view.name, view.form, due) if jittered else None) or due):
        reason += f"; its jitter holds it: the first tick at or after {when(held)} makes it"
    elif due <= now:
        reason += f"; {waiting}" if waiting else "; due now: the next tick makes it"
    return reason


def _why_notes(view: ScheduleView, now: int) -> list[str]:
    """The pause, the lease and a run asked for by hand, as `why` notes them."""
    notes: list[str] = []
    if view.skips_due_times:
        notes.append("paused: the tick that finds it due skips it (recorded `paused`) and moves it on "
                     "along its grid; `tickwork resume` lets it run again")
    if view.lease is not None:
        lease = view.lease
        started = when(lease.started)
        if lease.lapsed:
            notes.append(f"the run {lease.run} (started {started}) held its lease past "
                         f"{when(lease.until)}: the next tick records it failed `lease_expired`")
        else:
            notes.append(f"a run ({lease.run}, started {started}) holds the lease until "
                         f"{when(lease.until)} ({relative(lease.until, now)})")
    waiting = overlap_words.waiting_words(view, now) or overlap_words.beside_now_words(view)
    if waiting is not None:
        notes.append(waiting)
    if view.run_requested_at is not None:
        notes.append(f"a run asked for by hand by {view.run_requested_by} at "
                     f"{when(view.run_requested_at)} waits for the next tick")
    return notes


def _last_due_what(view: ScheduleView, state: dict, last: dict | None, gaps: list, now: int,
                   last_tick: int | None) -> tuple[int | None, str]:
    """The last due time dealt with (None for a run by hand before any), and what came of it."""
    if _unreached(view, now, last_tick):
        what = (f"not reached because ticks stopped: the last tick was "
                f"{when(last_tick) if last_tick else 'never'}"
                + (f" ({relative(last_tick, now)})" if last_tick else ""))
        if last is not None:
            what += f"; before that, {when(int(last['due_at']))}: {_what_happened(last, gaps)}"
        return view.due_at, what
    if last is not None:
        return (None if _ahead_of_due(last) else int(last["due_at"])), _last_run_words(last, state, gaps,
                                                                                     view.attempts, dict(view.settings))
    return None, (f"none yet: first seen by the tick at {when(int(state['first_tick']))}"
                  + (f", first due at {when(view.due_at)}" if view.next_due is not None else ""))


def _why_lines(name: str, where: str, data: dict, ticks: str, gaps: list) -> list[str]:
    lines = [name, f"  declared   {where}", f"  rule       {data['rule']}", f"  next due   {data['next_due_why']}"]
    lines += [f"  note       {note}" for note in data["notes"]]
    last_due, what = data["last_due"], data["last_due_what"]
    if last_due is None and data["last_run"] is not None:  # a run by hand, before any due time
        lines.append(f"  last run   {what}")
    else:
        lines.append(f"  last due   {when(last_due['ms']) + ': ' if last_due is not None else ''}{what}")
    lines.append(f"  {ticks}")
    if gaps:
        lines.append(f"  gaps       {_gap_words(gaps[0])}" + (f" and {len(gaps) - 1} before" if len(gaps) > 1 else ""))
    return lines


async def why(store: OperatorStore, now: int, name: str, project: Path | None, show_input: bool = False) -> Answer:
    state, last, lease, app, gaps = await store.explain(name)
    manifest = declared(project) if project else None
    entry = (manifest or {}).get(name)
    if state is None and entry is None:
        raise OperatorError(f"no schedule named `{name}`: `tickwork schedules` lists them")
    where = _declared_where(state, entry, manifest)
    last_tick = _number((app or {}).get("last_tick"))
    ticks = _last_tick_line(app, now)
    if state is None:
        never = "never seen by a tick yet: the first tick after the deploy that declares it seeds it"
        data = {"schedule": name, "declared": where, "rule": None, "next_due": None, "next_due_why": never,
                "last_due": None, "last_due_what": never, "last_tick": _instant(last_tick, now)}
        return Answer(data, [name, f"  declared   {where}", f"  next due   {never}", f"  {ticks}"])
    view = schedule_view(state, now, entry_of_manifest(entry), (lease or {}).get("started_at"))
    last_due, what = _last_due_what(view, state, last, gaps, now, last_tick)
    key, limit = state.get("concurrency_key"), limit_words(state)
    waiting = waiting_words(state, await under_way(store.db, key, now)) if key is not None else None
    data = {
        "schedule": name, "declared": where, "rule": view.rule(state) + (f"; {limit}" if limit else ""),
        "next_due": _instant(view.next_due, now),
        "next_due_why": _next_due_why(view, state, now, last is not None, last_tick, waiting),
        "runs_at": _instant(runs_at(name, view.form, view.next_due), now) if view.next_due else None,
        "notes": _why_notes(view, now), "last_due": _instant(last_due, now), "last_due_what": what,
        "last_run": _run_item(last, now) if last else None, "paused": view.paused,
        "last_tick": _instant(last_tick, now),
        "gaps": [{"from": _instant(g["from_tick"], now), "to": _instant(g["to_tick"], now)} for g in gaps],
        "attempts": view.attempts,
        "next_attempt": (None if not view.retry_pending else
                         {"attempt": int(state["retry_attempt"]), "at": _instant(view.due_at, now),
                          "for_due": _instant(int(state["retry_due"]), now)}),
    }
    lines = _why_lines(name, where, data, ticks, gaps)
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


# -- status ------------------------------------------------------------------------------------

async def status(store: OperatorStore, now: int, threshold: int, binding: str = "DB",
                 where: str = "--remote", window: int = LAG_WINDOW) -> Answer:
    """The last tick, its age and the gaps, and the lag from due to start of the runs of the last
    `window` ms; `binding` and `where` name the store in a mend."""
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
    lags = lag_view(await lags_since(store.db, now - window), window)
    data["lag"] = lags.data()
    if lags.overall is not None:  # no run in the window: nothing to say of its lag
        lines += ["", *lags.lines()]
    return Answer(data, lines, 0 if stopped is False else 1)
