"""Schedules handed over at run time, one per item: a customer's statement every Monday at nine
in the customer's zone, this order in an hour.

    from tickwork import call, items

    async def subscribe():                      # an action; a `fetch` or `queue` handler uses
        customer = ...                          # tickwork.adapters.workers.items(APP, self.env)
        customer.statement = await items.calendar(
            send_statement, {"customer": customer.id}, "0 9 * * 1", zone=customer.zone)

    async def unsubscribe():
        await items.cancel(customer.statement)

    async def send_statement():                 # an action of the app, like any other
        print(call.input["customer"], call.at)  # the input handed over, and the moment

A handed-over schedule is called by the rules of a declared calendar: late instead of lost, one
occurrence owed, at most one call a tick, and exactly once per (schedule, `at`) however ticks
race. Its id is derived from the action, the input, the timing and `expires`: handing the same
schedule over twice gives one schedule and the same id, and one cancelled and handed over again
comes back under that id. A `label` (the customer's name, say) says whom it is for to the
operator (`tickwork schedules`, `why`, `history`); it is no part of the id. It ends when
cancelled, when `expires` passes, or when its action is no longer in the app. Bad arguments raise
ScheduleError with the build's codes (kinds.rules checks them for both), nothing written.
Hand-over and cancel are one statement each. An id reads `send_statement@3f2a...`.

To change one, `items.replace(old_id, action, input, cron=... | every=... | at=...)`: the old one
ends `replaced` and the new one is handed over in one batch (never both, never neither), its id
returned and the two linked; `starts=` (no call before it) and `times=` (ended after that many
calls made) bound `calendar` and `every` schedules in time.

In bulk (`calendar_many`, `every_many`, `once_many`, `hand_over`, `cancel_many`), many items go
in one statement as a JSON list, within the statements the caller has left (`room`): what does
not fit is handed back as `left_over`, unwritten, rather than failing the run.
"""

import json
from dataclasses import dataclass, field
from types import FunctionType
from typing import Awaitable, Callable, Iterable

from .database import FREE_QUERIES, PAID_QUERIES, Database, operation, past_the_cap
from .errors import ScheduleError
from .items_checked import (  # noqa: F401  (the checks' names stay importable from here)
    LONGEST_LABEL, RUN_OPTIONS, _action, _at_item, _calendar, _described, _every_entry, _id, _input, _label,
    _moment, _once, _runs, _span, _taken,
)
from .items_checked import _checked_cron, _choice, _cron, _every, _ms, _text, _zone  # noqa: F401
from .json_values import ascii_json
from .kinds.concurrency import entry_of as _limited, limit_columns
from .kinds.forms import jittered_form, timing_of
from .kinds.jitter import jittered_entry
from .kinds.rules import comes_due
from .model import Action, seed_of
from .store.facade import ScheduleStore
from .store.replaces import Replaces
from .store.schedules import Handed
from .store.sql import digest, json_lists

Labels = str | Callable[[object], str | None] | None


@dataclass(frozen=True)
class Bulk:
    """What a call in bulk did. `ids`: of a hand-over, the ids of the items written, in the order
    given (`ids[k]` is the id of the k-th item); of `cancel_many`, the ids it ended. `left_over`:
    the items after them, as given, that the statements left to the caller did not reach; none
    of them was written. Hand them over again, say from the next run."""

    ids: list
    left_over: list
    not_live: list[str] = field(default_factory=list)  # of replace_many: the ids it found not going on
    # of replace_many: the ids left going on because their new one had already ended
    replacement_ended: list[str] = field(default_factory=list)


class Items:
    def __init__(self, db: Database, now: Callable[[], int], room: Callable[[], int | None] | None = None):
        """`now` gives the time a hand-over counts from, epoch ms: the tick's inside a run.
        `room` gives the D1 statements a call in bulk may still make (None: as many as it needs):
        inside a run, what the tick's cap leaves beside the run's end; in a handler, the
        invocation's."""
        self.store = ScheduleStore(db)
        self.replaces = Replaces(db)
        self.now = now
        self.room = room or (lambda: None)

    async def calendar(
        self,
        action: Action,
        input: object,
        cron: str,
        *,
        zone: str = "UTC",
        overdue: int | None = None,
        nonexistent: str = "shift",
        repeated: str = "first",
        expires: int | None = None,
        retry: str | None = None,
        limit: str | None = None,
        label: str | None = None,
        jitter: str | int | None = None,
        starts: int | None = None,
        times: int | None = None,
        skip: Iterable | None = None,
        overlap: str | None = None,
        concurrency: tuple[str, int] | None = None,
        workflow: str | None = None,
    ) -> str:
        """Calls `action` at each moment of `cron` (5 fields, or 6 with seconds first) read in
        `zone`, but on no date (YYYY-MM-DD in `zone`) of `skip`; `overdue` (ms) bounds how late a
        call may be; `expires` (epoch ms) ends it.
        `retry="3 after 1m"`, `limit="2m"` and `overlap="buffer"` as a declared schedule's (pauses
        of a minute or more). `label`, on every call here: whom or what it is for, shown to
        operators, no part of the id. `starts` (epoch ms): no call before it; `times`: it ends
        after that many calls made; `jitter="5m"` (here and for `every`) runs each due time up to
        5m after it (kinds.jitter); `concurrency=("api:acme", 4)`: at most 4 runs of that key at
        once (kinds.concurrency); `workflow="REPORTS"`: each run creates an instance of that Workflow
        binding in place of calling `action` (docs/how-to/workflows.md)."""
        entry = jittered_entry(_calendar(cron, zone, overdue, nonexistent, repeated, skip), jitter, self.now())
        entry |= _span(starts, times) | _limited(concurrency)
        return await self._hand_over(action, input, entry | _runs(retry, limit, overlap, workflow), expires, label)

    async def every(self, action: Action, input: object, every: int | str, *, expires: int | None = None,
                    retry: str | None = None, limit: str | None = None, label: str | None = None,
                    starts: int | None = None, times: int | None = None, overdue: int | None = None,
                    overlap: str | None = None, jitter: str | int | None = None,
                    concurrency: tuple[str, int] | None = None, workflow: str | None = None) -> str:
        """Calls `action` every `every` (ms, or `15m`, `1h`, `1d`), the first one `every` from now
        (or at `starts`, where given); `overdue` (ms) as a calendar's, counted from the grid time."""
        entry = jittered_entry(_every_entry(every, overdue), jitter, self.now())
        entry |= _runs(retry, limit, overlap, workflow) | _span(starts, times) | _limited(concurrency)
        return await self._hand_over(action, input, entry, expires, label)

    async def once(self, action: Action, input: object, at: int, *, label: str | None = None,
                   concurrency: tuple[str, int] | None = None, workflow: str | None = None) -> str:
        """Calls `action` once, at `at` (epoch ms), or at the first tick after it."""
        entry = _once(at) | _limited(concurrency) | _runs(None, None, None, workflow)
        return await self._hand_over(action, input, entry, None, label)

    @operation("cancel")
    async def cancel(self, id: str) -> bool:
        """Ends the schedule handed over under `id`; False when there is none going on."""
        id = _id(id)
        return await self._single("cancel", lambda: self.store.cancel(id, self.now()))

    async def calendar_many(self, action: Action, inputs: Iterable, cron: str, *, zone: str = "UTC",
                            overdue: int | None = None, nonexistent: str = "shift", repeated: str = "first",
                            expires: int | None = None, retry: str | None = None, limit: str | None = None,
                            label: Labels = None, starts: int | None = None, times: int | None = None,
                            skip: Iterable | None = None, overlap: str | None = None,
                            jitter: str | int | None = None, concurrency: tuple[str, int] | None = None) -> Bulk:
        """`calendar` for each of `inputs`, many to a statement; `left_over` holds inputs.
        `label`, here and in `every_many`, `once_many`: one for all, or a function of the input."""
        entry = (jittered_entry(_calendar(cron, zone, overdue, nonexistent, repeated, skip), jitter, self.now())
                 | _runs(retry, limit, overlap) | _span(starts, times) | _limited(concurrency))
        return await self._each(action, inputs, entry, expires, label)

    async def every_many(self, action: Action, inputs: Iterable, every: int | str, *, expires: int | None = None,
                         retry: str | None = None, limit: str | None = None, label: Labels = None,
                         starts: int | None = None, times: int | None = None, overdue: int | None = None,
                         overlap: str | None = None, jitter: str | int | None = None,
                         concurrency: tuple[str, int] | None = None) -> Bulk:
        """`every` for each of `inputs`, many to a statement; `left_over` holds inputs."""
        entry = (jittered_entry(_every_entry(every, overdue), jitter, self.now()) | _runs(retry, limit, overlap)
                 | _span(starts, times) | _limited(concurrency))
        return await self._each(action, inputs, entry, expires, label)

    async def once_many(self, action: Action, inputs: Iterable, at: int, *, label: Labels = None,
                        concurrency: tuple[str, int] | None = None) -> Bulk:
        """`once` for each of `inputs`, all at `at`, many to a statement; `left_over` holds inputs."""
        return await self._each(action, inputs, _once(at) | _limited(concurrency), None, label)

    async def hand_over(self, many: Iterable[dict]) -> Bulk:
        """Items of any timing at once, each a dict of a single call's arguments by name:
        `action`, `input` and one of `cron` (with `zone`, `overdue`, `nonexistent`, `repeated`, `skip`),
        `every` (with `overdue`) or `at`; `expires`, `retry`, `limit`, `starts`, `times` and `overlap`
        for `cron` and `every`; `label` and `concurrency` for any.
        `left_over` holds the dicts."""
        many = list(many)
        found = []
        for k, item in enumerate(many):
            with _at_item(k, len(many)):
                found.append(_described(item, self.now()))
        return await self._many(found, many)

    @operation("cancel")
    async def cancel_many(self, ids: Iterable[str]) -> Bulk:
        """`cancel` for each of `ids`, many to a statement: `ids` of the result are those it
        ended (the rest had none going on), `left_over` those it had no statements left for."""
        ids = list(ids)
        for k, id in enumerate(ids):
            with _at_item(k, len(ids)):
                _id(id)
        chunks = _within(json_lists(ids), self.room())
        ended = await self.store.cancel_many([text for text, _ in chunks], self.now())
        reached = sum(count for _, count in chunks)
        return Bulk([id for id in ids[:reached] if id in ended], ids[reached:])

    @operation("replace")
    async def replace(self, old_id: str, action: Action, input: object, **timing: object) -> str:
        """Ends the schedule handed over under `old_id` and hands `action` over in its place, in
        one batch: never both, never neither. `timing` as an item of `hand_over` names it (`cron=`
        with its options, `every=` or `at=`; `expires`, `retry`, `limit`, `starts`, `times`,
        `label`). The new id, from its content as ever; the old label carries over unless one is
        given. Where `old_id` is going on no more: ScheduleError `item.not_live`, nothing changed;
        where the new one already ended (a one-off made, its `times` made): `item.replacement_ended`."""
        [(id, row)] = self._replacing([{"replaces": old_id, "action": action, "input": input, **timing}])
        chunk = json.dumps([row])
        ended, kept = await self._single("replace", lambda: self.replaces.replace_many([chunk], self.now()), cost=2)
        if old_id in kept:
            raise _replacement_ended(old_id, id)
        if old_id not in ended:
            raise _not_live(old_id)
        return id

    @operation("replace")
    async def replace_many(self, many: Iterable[dict]) -> Bulk:
        """`replace` for each of `many`, items of `hand_over` that each name the id they
        `replaces`, two statements a chunk, in one batch. `ids[k]`: the new id of the k-th item,
        None where its old one was going on no more (then listed in `not_live`) or its new one had
        already ended (listed in `replacement_ended`), nothing changed for it; `left_over` holds the
        dicts the statements left did not reach."""
        many = list(many)
        rows = self._replacing(many)
        room = self.room()
        chunks = _within(json_lists([row for _, row in rows]), None if room is None else room // 2)
        ended, kept = await self.replaces.replace_many([text for text, _ in chunks], self.now())
        reached = sum(count for _, count in chunks)
        made = [(id, row[-1]) for id, row in rows[:reached]]
        return Bulk([id if old in ended else None for id, old in made], many[reached:],
                    [old for _, old in made if old not in ended and old not in kept],
                    [old for _, old in made if old in kept])

    def _replacing(self, many: list) -> list[tuple[str, list]]:
        """Each item's new id and its row with the id it replaces last; checked first, all of them."""
        now, rows = self.now(), []
        shared: dict[object, object] = {}
        for k, item in enumerate(many):
            with _at_item(k, len(many)):
                if not isinstance(item, dict) or "replaces" not in item:
                    raise TypeError("each item of items.replace_many is a dict of items.hand_over that names the "
                                    "id it `replaces`")
                item = dict(item)
                old = _id(item.pop("replaces"))
                action, input, entry, expires, label = _described(item, self.now())
                id, row = _row(action, input, entry, expires, now, shared, label)
                if id == old:
                    raise ScheduleError("item.replace_unchanged", f"the schedule replacing {old} is the same one",
                                        "change its action, input or timing; a label alone cannot change an id")
                rows.append((id, [*row, old]))
        olds, news = [row[-1] for _, row in rows], {id for id, _ in rows}
        twice = sorted({old for old in olds if olds.count(old) > 1 or old in news})
        if twice:
            raise ScheduleError("item.replaced_twice", f"{twice[0]} is replaced twice, or replaced and made, by one "
                                "call", "replace each id once a call, and not by another item of the same call")
        return rows

    @operation("hand_over")
    async def _hand_over(self, action: Action, input: object, entry: dict, expires: int | None,
                         label: object) -> str:
        now = self.now()
        id, row = _row(action, input, entry, expires, now, {}, label)
        await self._single("hand-over", lambda: self.store.hand_over(*row))
        return id

    async def _single(self, what: str, statement: Callable[[], Awaitable], cost: int = 1):
        """A single call's statement (`cost` of them, in one batch), refused with the calls in bulk
        named where the caller has not that many left, or D1 none left in the invocation."""
        room = self.room()
        statements = "one D1 statement" if cost == 1 else f"{cost} D1 statements in one batch"
        if room is not None and room < cost:
            raise _used_up(f"a single {what} is {statements}, and the caller has "
                           f"{'none' if room < 1 else room} left")
        try:
            return await statement()
        except Exception as error:
            if not past_the_cap(error):
                raise
            raise _used_up(f"a single {what} is {statements}, and D1 refused it: {error}") from error

    async def _each(self, action: Action, inputs: Iterable, entry: dict, expires: int | None,
                    label: Labels) -> Bulk:
        inputs = list(inputs)
        labelled = label if callable(label) else (lambda input: label)
        return await self._many([(action, input, entry, expires, labelled(input)) for input in inputs], inputs)

    @operation("hand_over")
    async def _many(self, items: list[tuple], given: list) -> Bulk:
        """Checks every item first (nothing written when one is bad), then writes the rows, a
        JSON list a statement, in one batch, as many statements as `room` allows."""
        now, rows = self.now(), []
        shared: dict[object, object] = {}
        for k, (action, input, entry, expires, label) in enumerate(items):
            with _at_item(k, len(items)):
                rows.append(_row(action, input, entry, expires, now, shared, label))
        chunks = _within(json_lists([row for _, row in rows]), self.room())
        await self.store.hand_over_many([text for text, _ in chunks])
        written = sum(count for _, count in chunks)
        return Bulk([id for id, _ in rows[:written]], given[written:])


def _row(action: Action, input: object, entry: dict, expires: int | None, now: int, shared: dict,
         label: object = None) -> tuple[str, list]:
    """An item's id and the row HAND_OVER writes; raises ScheduleError for a bad argument.
    `shared` keeps what items of one call share, found once: an action's key, a timing's form
    and first due time."""
    key = shared.get(action) if isinstance(action, FunctionType) else None
    if key is None:
        key = shared[action] = _action(action)
    body = _input(input)
    kept_escaped = ascii_json(input)  # ids are derived as before: every non-ASCII and DEL escaped
    expires = None if expires is None else _moment("expires", expires)
    entry_text = json.dumps(entry, sort_keys=True)
    timing = shared.get(entry_text)
    if timing is None:
        found = timing_of(entry)
        calendar = entry["kind"] == "calendar"
        starts = entry.get("starts_ms")
        due = comes_due(found, now, f"`{entry['cron']}`", starts) if calendar else found.first_due_from(now, starts)
        timing = shared[entry_text] = (jittered_form(found.form, entry.get("jitter_ms")), found.every_ms, due)
    form, every_ms, due = timing
    # The action's name first, for logs; `@` keeps ids apart from every declared name.
    id = f"{key.rpartition('.')[2].rpartition(':')[2]}@{digest(json.dumps([key, kept_escaped, entry_text, expires]))}"
    return id, Handed(name=id, action=key, timing=entry_text, input=body, form=form, every_ms=every_ms, due_at=due,
                      expires_at=expires, tick=now, label=_label(label), jitter_ms=entry.get("jitter_ms"),
                      jitter_seed=seed_of(id) if entry.get("jitter_ms") else None, **limit_columns(entry)).row()


def _used_up(why: str) -> ScheduleError:
    return ScheduleError("items.statements_used_up",
                         f"{why} (D1 takes {PAID_QUERIES:,} calls an invocation, {FREE_QUERIES} on Free)",
                         "hand many over in one call, many to a statement: items.calendar_many, every_many, "
                         "once_many or hand_over, and cancel_many (docs: how-to/hand-over-items.md, In bulk)")


def _not_live(id: str) -> ScheduleError:
    return ScheduleError("item.not_live", f"{id} is no schedule going on: it was cancelled, replaced or has ended, "
                         "or was never handed over; nothing changed",
                         "replace the id of a schedule still going on (`tickwork schedules --state live`), or hand "
                         "the new one over with items.calendar, items.every or items.once")


def _replacement_ended(old: str, new: str) -> ScheduleError:
    return ScheduleError("item.replacement_ended", f"{old} would be replaced by {new}, which has already ended "
                         "(a one-off already made, or one that made its `times` calls); nothing changed",
                         "replace it with a schedule not made before: another `at`, input or timing")


def _within(chunks: list[tuple[str, int]], room: int | None) -> list[tuple[str, int]]:
    """The chunks, first to last, that the statements left allow."""
    return chunks if room is None else chunks[:max(0, room)]
