"""The console's pages: plain server-rendered HTML, every value escaped (html.py), times in UTC
and, for a calendar, in its zone too. No script; one stylesheet from the console's own prefix."""

from ..backfill import backfilled_once_ended
from ..operating import overlap_words, words
from ..operating.concurrency_words import limit_words, waited_words, waiting_words
from ..operating.views import (
    LIFE, Entry, LeaseView, ScheduleView, run_view, schedule_view,
)
from ..operating.end_words import links
from ..operating.jitter_words import jitter_note
from ..operating.words import when
from . import charts, deploys
from .console_store import CHARTED, COUNTED
from .lag_section import lag_section
from .console_store import SEARCHED as LOOKED_THROUGH
from .html import Html, join, link, table, tag, void
from .parts import (  # noqa: F401  (CSS, Frame and answer: the routes' names of them)
    CSS, Frame, answer, attempt, attempt_noted, button, choice, field, hidden, iso, moment, named, outcome,
    outcome_noted, page, run_link, said, search_form, took,
)

# -- the overview -----------------------------------------------------------------------------

GRID_ROWS, GRID_CELLS = 12, 24  # the overview's grid: schedules, and due times of each
FAILING_MOST = 10  # schedules listed with failed runs; a link to the runs page lists every one


def overview(frame: Frame, found, since: int, deploys_: list | None = None, after: dict | None = None,
             lags=None) -> str:
    app = found.app or {}
    last, prev = app.get("last_tick"), app.get("prev_tick")
    stopped = last is None or frame.now - int(last) > 3 * 60_000
    ticks = tag("dl",
                tag("dt", "last tick"), tag("dd", moment(last, frame.now),
                                            tag("span", " ticks stopped" if stopped else " ticking",
                                                class_="stopped" if stopped else "ok")),
                tag("dt", "the one before"), tag("dd", moment(prev, frame.now)))
    gaps = table(["FROM", "TO", "NO TICK FOR"],
                 [[moment(g["from_tick"], frame.now), moment(g["to_tick"], frame.now),
                   words.short(int(g["to_tick"]) - int(g["from_tick"]))] for g in found.gaps], "no gaps")
    declared = table(["DECLARED SCHEDULE FAILING"],
                     [[link(frame.href("/schedule", name=name), name)] for name in found.declared_failing],
                     "no declared schedule is failing")
    failed = table(["SCHEDULE", "FAILED RUNS", "LAST FAILED"],
                   [[named(frame, row["schedule"], row.get("label")), row["failures"],
                     run_link(frame, {"id": row.get("last_run")}, moment(row["last_failed"], frame.now))]
                    for row in found.failed_recently[:FAILING_MOST]],
                   "no failed runs")
    if len(found.failed_recently) > FAILING_MOST:
        failed = join([failed, tag("p", link(frame.href("/runs", since="24h", outcome="failed"),
                                             "more: every failed run of the last day"))])
    deliveries = table(["DELIVERY", "EVENT", "STATE", "SENDS", "LAST ERROR", "UPDATED", "RUN"],
                       [[tag("span", row["id"], class_="id"), row["event_name"], row["state"], row["attempts"],
                         words.clip(row.get("last_error"), 120), moment(row["updated_at"], frame.now),
                         run_link(frame, {"id": row.get("run")}, "its run")]
                        for row in found.failing_deliveries], "no failed delivery")
    return page(frame, "", "Overview",
                tag("h2", "Ticks"), ticks, tag("h2", "Counts"), counts(frame, found),
                tag("h2", "Runs and failures"), charts.per_hour(frame, found.by_hour, CHARTED),
                tag("h2", "Recent due times, by outcome"), charts.overview_grid(frame, found.grid, GRID_ROWS),
                tag("h2", "Gaps in the ticks"), gaps, *lag_section(frame, lags),
                tag("h2", "Schedules failing"), declared,
                tag("h2", f"Failed runs since {when(since)}" if found.runs_counted_from is None else
                    f"Failed runs among the latest {COUNTED:,}, back to {when(found.runs_counted_from)}"), failed,
                tag("h2", "Deliveries failing"), deliveries,
                tag("p", link(frame.href("/deliveries"), "all deliveries an operator may act on")),
                *deploys.overview_section(frame, deploys_ or [], after))


def counts(frame: Frame, found) -> Html:
    def total(**where) -> int:
        return sum(int(row["n"]) for row in found.schedules
                   if all(bool(row[key]) == value for key, value in where.items()))

    schedules = frame.href("/schedules")
    boxes: list[tuple[str, int | str, str]] = [
        ("declared", total(handed_over=False, live=True), schedules),
        ("handed over", total(handed_over=True, live=True), schedules),
        ("paused", total(live=True, paused=True), frame.href("/schedules", state="paused")),
        ("ended or removed", total(live=False), frame.href("/schedules", state="ended"))]
    counted_from = found.runs_counted_from
    # Not "since" the earliest run counted: of its tick's runs, which share its tick_at, some may be left out.
    over = "in 24 h" if counted_from is None else f"of the latest {COUNTED:,}"
    boxes += [(f"runs {name} {over}", int(found.runs[name] or 0), frame.href("/runs", since="24h", outcome=name))
              for name in ("succeeded", "failed", "skipped")]
    deliveries = {row["state"]: row for row in found.deliveries}
    boxes += [(f"deliveries {name}", at_least(deliveries[name]), frame.href("/deliveries"))
              for name in ("pending", "failed", "outcome_unknown")]
    shown = tag("div", *(tag("div", link(href, tag("b", n), name)) for name, n, href in boxes), class_="counts")
    notes = [f"Runs are counted among the latest {COUNTED:,} of the last 24 h, the earliest of them at "
             f"{when(counted_from)}: the day may hold more."] if counted_from is not None else []
    if any(row["more"] for row in found.deliveries):
        notes.append(f"Deliveries are counted among {COUNTED:,} of those open in each index at most "
                     f"(one of pending and outcome-unknown ones, one of failed and outcome-unknown): "
                     f"a count with + is of those, and there are more.")
    return join([shown, *(tag("p", note, class_="muted") for note in notes)])


def at_least(row) -> str:
    """A count of deliveries as the page says it: `n+` where it was counted among COUNTED
    deliveries read, and more were left."""
    return f"{int(row['n']):,}" + ("+" if row["more"] else "")


# -- schedules --------------------------------------------------------------------------------

SEARCHED = [("name", "name"), ("action", "action"), ("label", "label"), ("input", "input")]
SHOWN_AS = {"ended": "ended or removed"}
STATES = [(state, SHOWN_AS.get(state, state)) for state in (*LIFE, "all")]


def schedule_row(frame: Frame, row: dict, entry: Entry | None = None) -> list:
    view = schedule_view(row, frame.now, entry)
    state = "ended (" + view.end + ")" if view.end else (
        "removed" if view.removed_at is not None else ("paused" if view.paused else "live"))
    last = "-"
    if view.last is not None:
        last = join([outcome({"outcome": view.last.outcome, "code": view.last.code}), " ",
                     moment(view.last.tick_at, frame.now)])
    label = row.get("label")
    name = join([link(frame.href("/schedule", name=row["name"]), row["name"], class_="id"),
                 tag("span", f"label {label}", class_="zone") if label else "",
                 tag("code", words.clip(row["input"], 80), class_="zone") if row.get("input") is not None else ""])
    due = None if view.removed_at is not None else view.due_at
    return [name, view.action or tag("span", "declared", class_="muted"), view.timing,
            moment(due, frame.now, view.zone), last, state]


def schedules(frame: Frame, declared: list[dict], handed: list[dict], more: bool, query: dict,
              notice: Html | str = "", searched_to: str | None = None,
              entries: dict[str, Entry] | None = None) -> str:
    """`searched_to`: where a search or state that no index serves (by action, label or input, a
    name's GLOB past a prefix, paused or ended) stopped looking, SEARCHED names on, with more after it.
    `entries`: the declared schedules' declarations, by name."""
    headers = ["NAME", "ACTION", "TIMING", "NEXT DUE (UTC, ITS ZONE)", "LAST RUN", "STATE"]
    form = search_form(frame, "/schedules", [
        ("look for", field("q", query.get("q"), "a name, prefix or GLOB")),
        ("in", choice("in", query.get("in"), SEARCHED)),
        ("state", choice("state", query.get("state") or "live", STATES)),
    ])
    body = [form, notice]
    if query.get("after") is None:
        rows = [schedule_row(frame, row, (entries or {}).get(row["name"])) for row in declared]
        body += [tag("h2", "Declared"), table(headers, rows,
                                                "no declared schedule matches")]
    body += [tag("h2", "Handed over at run time" + (f", after {query['after']}" if query.get("after") else "")),
             table(headers, [schedule_row(frame, row) for row in handed], "no handed-over schedule matches")]
    if more:
        body.append(tag("p", link(frame.href("/schedules", **{**query, "after": handed[-1]["name"]}), "next page")))
    elif searched_to is not None:
        body.append(tag("p", f"A search by action, label or input, by a name's GLOB that is more than a prefix, "
                             f"or of those paused or ended, looks through {LOOKED_THROUGH:,} schedules "
                             f"a page: this one looked as far as {searched_to}. ",
                        link(frame.href("/schedules", **{**query, "after": searched_to}), "look further"),
                        class_="muted"))
    return page(frame, "/schedules", "Schedules", *body)


# -- one schedule -----------------------------------------------------------------------------

def schedule(frame: Frame, name: str, found, entry: Entry | None, next_due: list[int],
             more: bool, back: str, around: list | None = None) -> str:
    """`entry`: its declaration, where it is declared (its source, `overdue`, `retry` and `limit`)."""
    state = found.state
    if state is None:
        return page(frame, "/schedules", name, said("No tick has seen a schedule of this name yet."))
    view = schedule_view(state, frame.now, entry)
    behind = overlap_words.buffered_behind(found.runs)
    beside = overlap_words.ran_beside(found.runs)
    history = table(
        ["DUE (UTC, ITS ZONE)", "STARTED", "TOOK", "OUTCOME", "ATTEMPT", "KIND", "CALL", "DID", "ASKED FOR",
         "MISSED", "TRACE", "DETAIL"],
        [[moment(run_view(run).due_at, frame.now, view.zone),
          moment(run.get("started_at"), frame.now), took(run), run_link(frame, run, outcome(run)),
          attempt_noted(run, view),
          run.get("kind") or "", words.call_words(run), words.did(run), words.asked_words(run),
          words.missed_words(run, name), tag("span", run["trace"], class_="id") if run.get("trace") else "",
          detail(run, behind.get(run["id"]), waited_words(run, state, found.gaps), beside.get(run["id"]))]
         for run in found.runs], "no runs yet")
    body = [tag("dl", *(join([tag("dt", key), tag("dd", value)]) for key, value in
                        facts(frame, view, state, found, entry, next_due))),
            tag("div", *schedule_actions(frame, view, back), class_="actions"),
            tag("h2", "Due times, by outcome"), charts.schedule_grid(frame, found.runs),
            tag("h2", "History, newest first"), history, *deploys.beside_history(frame, found.runs, around or [],
                                                                                   view.zone)]
    if more:
        last = found.runs[-1]
        body.append(tag("p", link(frame.href("/schedule", name=name,
                                             before=f"{int(last['due_at'])}:{int(last['tick_at'])}:{last['id']}"),
                                  "older runs")))
    body += [tag("h2", "Backfills"), backfills_table(frame, found.backfills, back)]
    if view.removed_at is None or backfilled_once_ended(view.ended):
        missed = found.last if found.last is not None and found.last.get("covers") is not None else {}
        body.append(backfill_form(frame, name, back, iso(missed.get("covers_first")),
                                  iso(missed.get("covers_last"))))
    body += [tag("h2", "Operator log"), log_table(frame, found.log)]
    return page(frame, "/schedules", name, *body)


def facts(frame: Frame, view: ScheduleView, state: dict, found, entry: Entry | None,
          next_due: list[int]) -> list[tuple[str, Html | str]]:
    """What the schedule's page states of it, `why`'s facts: where it is declared, its rule, when
    it is next due and why then, its pause, lease, run asked for by hand and last run."""
    where = (f"handed over at run time: calls {view.action}" if view.handed_over
             else (entry.source if entry is not None else None) or "not declared in the current build")
    said_: list[tuple[str, Html | str]] = [("declared", where), ("rule", view.rule(state))]
    if limited := limit_words(state):
        said_.append(("concurrency", limited))
    if view.kind == "calendar":
        said_.append(("overdue", words.overdue_words(view.overdue_ms)))
    if state.get("label"):
        said_.append(("label", state["label"]))
    if state.get("input") is not None:
        said_.append(("input", tag("code", state["input"])))
    said_ += [(what, _linked(frame, what, words_)) for what, words_ in links(state)]
    if view.removed_at is not None:
        said_.append(("ended", join([view.end or "no longer declared", " ", moment(view.removed_at, frame.now)])))
    else:
        said_.append(("next due", join([tag("div", moment(due, frame.now, view.zone)) for due in next_due]
                                       or ["never"])))
        if view.skipped:
            said_.append(("skipped", join([tag("div", said) for said in view.skipped])))
        if next_due and state.get("retry_attempt") is not None:
            said_.append(("why then", words.retry_words(state, view.attempts, dict(view.settings))))
        elif next_due:
            said_.append(("why then", words.due_reason(view.form, next_due[0], found.last is not None)))
            if jitter_note(view.name, view.form, next_due[0]):
                said_.append(("jitter", f"due {when(next_due[0])}{jitter_note(view.name, view.form, next_due[0])}"))
        if next_due and next_due[0] <= frame.now and (waiting := waiting_words(state, found.under_way)):
            said_.append(("waiting", waiting))
    if view.skips_due_times:
        said_.append(("paused", "the tick that finds it due skips it (recorded `paused`) and moves it on"))
    if view.lease is not None:
        said_.append(("running", lease_words(frame, view.lease)))
    if (waiting := overlap_words.waiting_words(view, frame.now)) is not None:
        said_.append(("buffered", waiting))
    if (beside := overlap_words.beside_now_words(view)) is not None:
        said_.append(("beside", beside))
    if view.run_requested_at is not None:
        said_.append(("run by hand", f"asked for by {view.run_requested_by} at "
                                     f"{when(view.run_requested_at)}: the next tick makes it"))
    if found.last is not None:
        said_.append(("last run", words.last_run_words(found.last, state, found.gaps, view.attempts,
                                                       dict(view.settings))))
    return said_


def _linked(frame: Frame, what: str, said: str) -> Html | str:
    """A fact naming another schedule (`replaces`, `replaced by`) links to its page."""
    if what not in ("replaces", "replaced by"):
        return said
    other = said.removeprefix(what + " ")
    return link(frame.href("/schedule", name=other), other, class_="id")


def lease_words(frame: Frame, lease: LeaseView) -> Html:
    """The run under the lease and until when; once lapsed, what the next tick does of it, as `why` says."""
    if lease.lapsed:
        return join([tag("span", lease.run, class_="id"), ", lease lapsed ", moment(lease.until, frame.now),
                     ": the next tick records it failed `lease_expired`"])
    return join([tag("span", lease.run, class_="id"), ", lease until ", moment(lease.until, frame.now)])


def schedule_actions(frame: Frame, view: ScheduleView, back: str) -> list[Html]:
    """The buttons of what an operator may do to the schedule as it stands."""
    actions = []
    if view.removed_at is None:
        if view.paused:
            actions.append(button(frame, "/schedule/resume", "Resume", back, name=view.name))
        else:
            actions.append(button(frame, "/schedule/pause", "Pause", back, name=view.name))
            if view.run_requested_at is None:
                actions.append(button(frame, "/schedule/run", "Run now, by hand", back, name=view.name))
        if view.handed_over and not view.ended:
            actions.append(button(frame, "/schedule/cancel", "Cancel this item", back, name=view.name))
    return actions


def detail(run: dict, behind: int | None = None, waited: str | None = None, beside: int | None = None) -> str:
    """A skip says why, as `why` does (superseded, undeclared, ...); a failure its detail; a run
    made late behind the one before it (`behind`, that one's due time), or after waiting for its
    concurrency key (`waited`), that it was; one made beside a run still going (`beside`, that
    one's due time), that it was."""
    said_ = words.clip(run.get("detail"), 160)
    if behind is not None and not said_:
        return overlap_words.behind_words(behind)
    if waited and not said_:
        return waited
    if beside is not None and not said_:
        return overlap_words.beside_words(beside)
    if run["outcome"] == "skipped" and run.get("code") in words.SKIPS:
        return words.SKIPS[run["code"]].removeprefix("skipped: ") + (f" ({said_})" if said_ else "")
    return said_


# -- backfills ----------------------------------------------------------------------------------

def backfills_table(frame: Frame, rows: list[dict], back: str) -> Html:
    return table(["ASKED", "BY", "FROM", "TO", "STATE", "MADE", "NEXT", ""],
                 [[moment(row["requested_at"], frame.now), row["who"], moment(row["from_at"], frame.now),
                   moment(row["to_at"], frame.now), words.backfill_state_words(row["state"]), row["made"],
                   moment(row["next_at"] if row["state"] == "pending" else row.get("ended_at"), frame.now),
                   button(frame, "/backfill/cancel", "Cancel", back, id=row["id"]) if row["state"] == "pending" else ""]
                  for row in rows], "no backfill asked for")


def backfill_form(frame: Frame, name: str, back: str, start: str = "", end: str = "") -> Html:
    """From and to (UTC unless they say otherwise, or epoch ms), as `tickwork backfill NAME --from
    --to` takes them: listed first, or asked for at once."""
    return tag("form", *hidden(frame, back, name=name),
               tag("label", "from ", void("input", type="text", name="from", value=start,
                                           placeholder="2026-02-01T00:00Z", required=True)), " ",
               tag("label", "to ", void("input", type="text", name="to", value=end,
                                         placeholder="2026-03-01T00:00Z", required=True)), " ",
               tag("button", "List what it would make", type="submit", name="dry", value="1"), " ",
               tag("button", "Ask for the backfill", type="submit"),
               method="post", action=frame.href("/schedule/backfill"), class_="actions")


def backfill_listed(frame: Frame, plan, start: str, end: str, back: str) -> str:
    """A dry run: what a backfill would make, and the form that asks for it."""
    head = words.backfill_words(plan)
    listed = table(["OCCURRENCE (UTC)"], [[words.occurrence_words(call)] for call in plan.todo],
                   "nothing to make")
    body = [said(head + ("; a backfill would make them, oldest first:" if plan.todo else "")), listed]
    if plan.todo or plan.more:
        body.append(backfill_form(frame, plan.name, back, start, end))
    body.append(tag("p", link(back, "back")))
    return page(frame, "/schedules", f"Backfill {plan.name}", *body)


# -- the operator log ------------------------------------------------------------------------

def log_table(frame: Frame, rows: list[dict]) -> Html:
    return table(["WHEN", "WHO", "VERB", "OF", "DETAIL"],
                 [[moment(row["at"], frame.now), row["who"], row["verb"],
                   link(frame.href("/schedule", name=row["schedule"]), row["schedule"], class_="id")
                   if row.get("schedule") else tag("span", row.get("delivery") or "", class_="id"),
                   row.get("detail") or ""] for row in rows], "nothing logged")


def log(frame: Frame, rows: list[dict], more: bool) -> str:
    body = [log_table(frame, rows)]
    if more:
        body.append(tag("p", link(frame.href("/log", before=f"{int(rows[-1]['at'])}:{rows[-1]['id']}"), "older")))
    return page(frame, "/log", "Operator log", *body)
