"""The console's page of one run (or skip): its record whole, with the end of its traceback where
it raised; every attempt of its due time; its trace; what it emitted with each delivery's state;
the occurrences it covered; who or what asked for it; and, for a failed one, the button that
makes its due time again (store/remakes.py)."""

from ..operating import words
from ..operating.concurrency_words import waited_words
from ..operating.remake import why_not_remade
from ..operating.views import run_view, zone_of
from ..operating.words import when
from .html import Html, join, link, table, tag
from .parts import Frame, attempt, button, moment, outcome, page, run_link, said, took
from .run_store import OneRun
from .terminating import terminate_action


def run_page(frame: Frame, id: str, found: OneRun) -> str:
    run = found.run
    if run is None:
        return page(frame, "/runs", "No such run", said(f"There is no run {id}: its record may have been "
                                                         "deleted with the others past their retention.", True))
    back = frame.href("/run", id=run["id"])
    body: list[Html | str] = [tag("dl", *(join([tag("dt", key), tag("dd", value)])
                                         for key, value in facts(frame, run, found)))]
    if run.get("detail"):
        body += [tag("h2", "Detail"), tag("pre", run["detail"], class_="whole")]
    if run.get("stack"):
        body += [tag("h2", "Traceback (its last lines)"), tag("pre", run["stack"], class_="whole")]
    body += [tag("div", *remake_action(frame, run, found, back), *terminate_action(frame, run, back), class_="actions")]
    body += [tag("h2", "Every attempt of this due time"), attempts_table(frame, run, found.attempts)]
    body += [tag("h2", "What it emitted"), emitted_table(found.emitted)]
    if found.remakes:
        body += [tag("h2", "Remakes of this due time"), remakes_table(frame, found.remakes)]
    return page(frame, "/runs", f"Run of {run['schedule']}", *body)


def facts(frame: Frame, run: dict, found: OneRun) -> list[tuple[str, Html | str]]:
    zone = zone_of(run.get("form"))
    view = run_view(run)
    schedule = link(frame.href("/schedule", name=run["schedule"]), run["schedule"], class_="id")
    said_: list[tuple[str, Html | str]] = [
        ("schedule", join([schedule, "" if run.get("schedule_kept") else tag("span", " (gone)", class_="muted")])),
        ("run", tag("span", run["id"], class_="id")),
        ("outcome", join([outcome(run), f" ({run['kind']})" if run.get("kind") else ""])),
        ("due", moment(None if words.ahead_of_due(run) else view.due_at, frame.now, zone)),
        ("asked for by", asked(frame, run, found.backfill)),
        ("tick", moment(run["tick_at"], frame.now)),
        ("started", moment(run.get("started_at"), frame.now)),
        ("ended", moment(run.get("ended_at"), frame.now)),
    ]
    if took(run):
        said_.append(("took", took(run)))
    if words.call_words(run):
        said_.append(("call", words.call_words(run)))
    if waited := waited_words(run, run, found.gaps):  # its record carries its schedule's key and limit
        said_.append(("concurrency", waited))
    if run.get("covers") is not None:
        said_.append(("covered", words.missed_words(run, run["schedule"], verbose=True)))
    if words.did(run):
        said_.append(("did", words.did(run)))
    if run.get("label"):
        said_.append(("label", run["label"]))
    said_.append(("trace", tag("span", run.get("trace") or "none (a skip runs nothing)", class_="id")))
    return said_


def asked(frame: Frame, run: dict, backfill: dict | None) -> Html | str:
    """Who or what asked for the run: its due time, a retry, an operator by hand, a backfill or a remake."""
    if run.get("by_hand"):
        return f"{run['by_hand']}, by hand"
    if backfill is not None and backfill.get("remake_of"):
        return join([f"{backfill['who']}, making the due time again (remake of ",
                     run_link(frame, {"id": backfill["remake_of"]}), f") at {when(int(backfill['requested_at']))}"])
    if backfill is not None or run.get("backfill"):
        who = backfill["who"] if backfill is not None else run["backfill"]
        return f"{who}, by a backfill" + (f" ({backfill['id']})" if backfill is not None else "")
    if int(run.get("attempt") or 1) > 1:
        return f"a retry of its due time ({attempt(run, None)})"
    return "its due time"


def remake_action(frame: Frame, run: dict, found: OneRun, back: str) -> list[Html]:
    """The button that makes a failed run's due time again where it may be made, as the action
    checks it (operating.remake.why_not_remade); where not, why."""
    if run["outcome"] != "failed" or not run.get("schedule_kept"):
        return []
    why = why_not_remade({**run, "schedule_due": run["due_at"],
                          "succeeded": any(a["outcome"] == "succeeded" for a in found.attempts),
                          "running": any(a["outcome"] == "running" for a in found.attempts),
                          "waiting": any(r["state"] == "pending" for r in found.remakes)})
    if why:
        return [tag("span", f"Its due time is not made again: {why}.", class_="muted")]
    return [button(frame, "/run/remake", "Make this due time again", back, id=run["id"])]


def attempts_table(frame: Frame, shown: dict, rows: list[dict]) -> Html:
    """Each run and skip of the due time: a few columns, so that it reads on a phone too."""
    def asked_for(row: dict) -> str:
        said_ = f"remake by {row['backfill']}" if row.get("remake_of") else words.asked_words(row)
        return ", ".join(part for part in (attempt(row, None), said_) if part) or "its due time"

    return table(["RUN", "STARTED", "OUTCOME", "ASKED FOR"],
                 [[run_link(frame, row) if row["id"] != shown["id"] else tag("b", row["id"], class_="id"),
                   join([moment(row.get("started_at") or row["tick_at"], frame.now),
                         tag("span", took(row), class_="zone") if took(row) else ""]),
                   outcome(row), asked_for(row)] for row in rows],
                 "no other attempt")


def emitted_table(rows: list[dict]) -> Html:
    return table(["EVENT", "BODY", "DELIVERY", "QUEUE", "STATE", "SENDS", "LAST ERROR"],
                 [[row["name"], tag("code", words.clip(row.get("body"), 200)), tag("span", row.get("delivery") or "",
                                                                                   class_="id"),
                   row.get("queue") or "", row.get("state") or "", row.get("attempts") or 0,
                   row.get("last_error") or ""] for row in rows],
                 "nothing emitted (a failed run emits nothing)")


def remakes_table(frame: Frame, rows: list[dict]) -> Html:
    return table(["ASKED", "BY", "OF RUN", "STATE", "MADE"],
                 [[moment(row["requested_at"], frame.now), row["who"], run_link(frame, {"id": row["remake_of"]}),
                   words.backfill_state_words(row["state"]), row["made"]] for row in rows], "none")
