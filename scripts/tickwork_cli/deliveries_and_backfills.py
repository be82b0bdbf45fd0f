"""The verbs of the outbox's deliveries (deliveries, retry, dismiss, cancel) and of backfills
(backfill, its --cancel, backfills): what each reads or changes, and what it answers, as verbs.py's."""

from pathlib import Path

from tickwork.backfill import DRY_RUN_MOST, Refused
from tickwork.backfill import plan as plan_backfill
from tickwork.operating import views
from tickwork.operating.words import (
    backfill_asked_words, backfill_cancelled_words, backfill_state_words, backfill_words, occurrence_words,
)
from tickwork.store.operator import FROM_STATES, OperatorStore

from .manifest import consumer_tries, declared
from .verbs import Answer, OperatorError, _clip, _instant, _log_item, _table
from .words import when


# -- deliveries --------------------------------------------------------------------------------

def _delivery_item(row: dict, now: int, log: list[dict], tries: dict[str, int]) -> dict:
    view = views.delivery_view(row, tries)
    return {
        "id": view.id, "state": view.state, "event": row["event"], "event_name": view.event_name,
        "queue": view.queue, "sends": view.sends, "next_send": _instant(view.next_send, now),
        "consumer_tries": view.consumer_tries,
        "lease_until": _instant(row.get("lease_until"), now), "last_error": view.last_error,
        "body": row["body"], "body_length": int(row["body_length"]), "run": row.get("run"),
        "emitted": _instant(row["emitted_at"], now), "updated": _instant(row["updated_at"], now),
        "operator_log": [_log_item(entry, now) for entry in log if entry["delivery"] == view.id],
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
                   who: str, dry_run: bool = False, project=None) -> Answer:
    if name is None:
        raise OperatorError("backfill.schedule_missing: name the schedule (or an item's id) to backfill")
    try:
        entry = ((declared(project) if project else None) or {}).get(name) or {}
        plan = await plan_backfill(store, now, name, start, end, skip=entry.get("skip"))
    except Refused as refused:
        raise OperatorError(str(refused)) from None
    if plan is None:
        raise OperatorError(f"no schedule named `{name}`: `tickwork schedules` lists them")
    todo = plan.todo
    occurrences = [{"at": _instant(call.at, now), "n": call.n, "i": call.i, "dst": call.dst} for call in todo]
    data = {"verb": "backfill", "schedule": name, "from": _instant(start, now), "to": _instant(end, now),
            "dry_run": dry_run, "occurrences": occurrences, "made_already": plan.made_already,
            "skipped": list(plan.skipped),
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
            [i["id"], i["schedule"], when(i["from"]["ms"]), when(i["to"]["ms"]), i["who"],
             backfill_state_words(i["state"]),
             str(i["made"]), when(i["next"]["ms"]) if i["state"] == "pending" else "-"] for i in items])
    return Answer({"backfills": items}, lines)
