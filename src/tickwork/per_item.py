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

In bulk (`calendar_many`, `every_many`, `once_many`, `hand_over`, `cancel_many`), many items go
in one statement as a JSON list, within the statements the caller has left (`room`): what does
not fit is handed back as `left_over`, unwritten, rather than failing the run.
"""

import json
import re
import reprlib
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from types import FunctionType
from typing import Awaitable, Callable, Iterable

from .app import action_key, action_of
from .database import FREE_QUERIES, PAID_QUERIES, Database, operation, past_the_cap
from .json_values import BIDI_CONTROLS, NotJSON, ascii_json, is_text, json_text
from .kinds.calendar import CACHED, NONEXISTENT, REPEATED
from .kinds.concurrency import entry_of as _limited, limit_columns
from .kinds.forms import timing_of
from .kinds.rules import (
    choice_checked, comes_due, every_within_target, seconds_within_target, within_bounds, zone_checked,
)
from .errors import ScheduleError
from .model import Action
from .store.facade import ScheduleStore
from .store.schedules import Handed
from .store.sql import digest, json_lists
from .times import LONGEST, NEVER, duration_ms

_LARGEST_INPUT = 64 * 1024  # UTF-8 bytes of its JSON; D1 takes 100 KB a statement
LONGEST_LABEL = 200  # characters: a name to show in a table, not a record
# What a label may not hold: controls, line breaks and the bidirectional marks that reorder a line.
_UNSHOWN = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}]")

Labels = str | Callable[[object], str | None] | None


@dataclass(frozen=True)
class Bulk:
    """What a call in bulk did. `ids`: of a hand-over, the ids of the items written, in the order
    given (`ids[k]` is the id of the k-th item); of `cancel_many`, the ids it ended. `left_over`:
    the items after them, as given, that the statements left to the caller did not reach; none
    of them was written. Hand them over again, say from the next run."""

    ids: list[str]
    left_over: list


class Items:
    def __init__(self, db: Database, now: Callable[[], int], room: Callable[[], int | None] | None = None):
        """`now` gives the time a hand-over counts from, epoch ms: the tick's inside a run.
        `room` gives the D1 statements a call in bulk may still make (None: as many as it needs):
        inside a run, what the tick's cap leaves beside the run's end; in a handler, the
        invocation's."""
        self.store = ScheduleStore(db)
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
        concurrency: tuple[str, int] | None = None,
    ) -> str:
        """Calls `action` at each moment of `cron` (5 fields, or 6 with seconds first) read in
        `zone`; `overdue` (ms) bounds how late a call may be; `expires` (epoch ms) ends it.
        `retry="3 after 1m"` and `limit="2m"` as a declared schedule's (pauses of a minute or more).
        `label`, on every call here: whom or what it is for, shown to operators, no part of the id;
        `concurrency=("api:acme", 4)`: at most 4 runs of that key at once (kinds.concurrency)."""
        entry = _calendar(cron, zone, overdue, nonexistent, repeated) | _limited(concurrency)
        return await self._hand_over(action, input, entry | _runs(retry, limit), expires, label)

    async def every(self, action: Action, input: object, every: int | str, *, expires: int | None = None,
                    retry: str | None = None, limit: str | None = None, label: str | None = None,
                    concurrency: tuple[str, int] | None = None) -> str:
        """Calls `action` every `every` (ms, or `15m`, `1h`, `1d`), the first one `every` from now."""
        entry = _every_entry(every) | _runs(retry, limit) | _limited(concurrency)
        return await self._hand_over(action, input, entry, expires, label)

    async def once(self, action: Action, input: object, at: int, *, label: str | None = None,
                   concurrency: tuple[str, int] | None = None) -> str:
        """Calls `action` once, at `at` (epoch ms), or at the first tick after it."""
        return await self._hand_over(action, input, _once(at) | _limited(concurrency), None, label)

    @operation("cancel")
    async def cancel(self, id: str) -> bool:
        """Ends the schedule handed over under `id`; False when there is none going on."""
        id = _id(id)
        return await self._single("cancel", lambda: self.store.cancel(id, self.now()))

    async def calendar_many(self, action: Action, inputs: Iterable, cron: str, *, zone: str = "UTC",
                            overdue: int | None = None, nonexistent: str = "shift", repeated: str = "first",
                            expires: int | None = None, retry: str | None = None, limit: str | None = None,
                            label: Labels = None, concurrency: tuple[str, int] | None = None) -> Bulk:
        """`calendar` for each of `inputs`, many to a statement; `left_over` holds inputs.
        `label`, here and in `every_many`, `once_many`: one for all, or a function of the input."""
        entry = _calendar(cron, zone, overdue, nonexistent, repeated) | _runs(retry, limit) | _limited(concurrency)
        return await self._each(action, inputs, entry, expires, label)

    async def every_many(self, action: Action, inputs: Iterable, every: int | str, *, expires: int | None = None,
                         retry: str | None = None, limit: str | None = None, label: Labels = None,
                         concurrency: tuple[str, int] | None = None) -> Bulk:
        """`every` for each of `inputs`, many to a statement; `left_over` holds inputs."""
        entry = _every_entry(every) | _runs(retry, limit) | _limited(concurrency)
        return await self._each(action, inputs, entry, expires, label)

    async def once_many(self, action: Action, inputs: Iterable, at: int, *, label: Labels = None,
                        concurrency: tuple[str, int] | None = None) -> Bulk:
        """`once` for each of `inputs`, all at `at`, many to a statement; `left_over` holds inputs."""
        return await self._each(action, inputs, _once(at) | _limited(concurrency), None, label)

    async def hand_over(self, many: Iterable[dict]) -> Bulk:
        """Items of any timing at once, each a dict of a single call's arguments by name:
        `action`, `input` and one of `cron` (with `zone`, `overdue`, `nonexistent`, `repeated`),
        `every` or `at`; `expires`, `retry`, `limit` for `cron` and `every`; `label`, `concurrency` for any.
        `left_over` holds the dicts."""
        many = list(many)
        found = []
        for k, item in enumerate(many):
            with _at_item(k, len(many)):
                found.append(_described(item))
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

    @operation("hand_over")
    async def _hand_over(self, action: Action, input: object, entry: dict, expires: int | None,
                         label: object) -> str:
        now = self.now()
        id, row = _row(action, input, entry, expires, now, {}, label)
        await self._single("hand-over", lambda: self.store.hand_over(*row))
        return id

    async def _single(self, what: str, statement: Callable[[], Awaitable]):
        """A single call's one statement, refused with the calls in bulk named where the caller
        has no statement left for it, or D1 none left in the invocation."""
        room = self.room()
        if room is not None and room < 1:
            raise _used_up(f"a single {what} is one D1 statement, and the caller has none left")
        try:
            return await statement()
        except Exception as error:
            if not past_the_cap(error):
                raise
            raise _used_up(f"a single {what} is one D1 statement, and D1 refused it: {error}") from error

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
        due = comes_due(found, now, f"`{entry['cron']}`") if calendar else found.first_due(now)
        timing = shared[entry_text] = (found.form, found.every_ms, due)
    form, every_ms, due = timing
    # The action's name first, for logs; `@` keeps ids apart from every declared name.
    id = f"{key.rpartition('.')[2].rpartition(':')[2]}@{digest(json.dumps([key, kept_escaped, entry_text, expires]))}"
    return id, Handed(name=id, action=key, timing=entry_text, input=body, form=form, every_ms=every_ms, due_at=due,
                      expires_at=expires, tick=now, label=_label(label), **limit_columns(entry)).row()


def _used_up(why: str) -> ScheduleError:
    return ScheduleError("items.statements_used_up",
                         f"{why} (D1 takes {PAID_QUERIES:,} calls an invocation, {FREE_QUERIES} on Free)",
                         "hand many over in one call, many to a statement: items.calendar_many, every_many, "
                         "once_many or hand_over, and cancel_many (docs: how-to/hand-over-items.md, In bulk)")


def _within(chunks: list[tuple[str, int]], room: int | None) -> list[tuple[str, int]]:
    """The chunks, first to last, that the statements left allow."""
    return chunks if room is None else chunks[:max(0, room)]


def _calendar(cron: object, zone: object, overdue: object, nonexistent: object, repeated: object) -> dict:
    return {
        "kind": "calendar",
        "cron": _cron(cron),
        "zone": _zone(zone),
        "nonexistent": _choice("nonexistent", nonexistent, NONEXISTENT),
        "repeated": _choice("repeated", repeated, REPEATED),
        "overdue_ms": None if overdue is None else _ms("overdue", overdue, "schedule.overdue_invalid"),
    }


def _every_entry(every: object) -> dict:
    ms = _every(every)
    every_within_target(ms, f"every {ms} ms", "hand over every 60000 ms (1m) or more")
    return {"kind": "schedule", "every_ms": ms}


def _once(at: object) -> dict:
    return {"kind": "once", "at_ms": _moment("at", at)}


def _described(item: object) -> tuple:
    """An item of `hand_over` as (action, input, entry, expires, label)."""
    if not isinstance(item, dict):
        raise TypeError(f"items.hand_over takes dicts of a single call's arguments, not {type(item).__name__}")
    missing = [f"`{name}`" for name in ("action", "input") if name not in item]
    if missing:
        raise TypeError(f"each item of items.hand_over names its {' and '.join(missing)}")
    item = dict(item)
    action, input, label = item.pop("action"), item.pop("input"), item.pop("label", None)
    limited = _limited(item.pop("concurrency", None))
    timings = [name for name in ("cron", "every", "at") if name in item]
    if len(timings) != 1:
        raise TypeError("each item of items.hand_over names one of `cron`, `every` or `at`, "
                        f"not {' and '.join(timings) or 'none'}")
    runs = _runs(item.get("retry"), item.get("limit")) if timings != ["at"] else {}
    if timings == ["cron"]:
        return action, input, _calendar(**_taken(item, "cron", zone="UTC", overdue=None, nonexistent="shift",
                                                 repeated="first")) | runs | limited, item.get("expires"), label
    if timings == ["every"]:
        return action, input, _every_entry(**_taken(item, "every")) | runs | limited, item.get("expires"), label
    return action, input, _once(**_taken(item, "at")) | limited, None, label


RUN_OPTIONS = ("expires", "retry", "limit")  # beside a repeating timing's own arguments


def _taken(item: dict, timing: str, **defaults) -> dict:
    """The arguments of an item's timing, with their defaults; a name none of them takes is refused."""
    allowed = {timing, *defaults} | (set(RUN_OPTIONS) if timing != "at" else set())
    unknown = sorted(set(item) - allowed)
    if unknown:
        raise TypeError(f"an item with `{timing}` takes no {', '.join(f'`{u}`' for u in unknown)}")
    return {**defaults, **{k: v for k, v in item.items() if k not in RUN_OPTIONS}}


class _at_item:
    """Says which item of a call in bulk a ScheduleError is about: `item 7 of 10,000: ...`."""

    def __init__(self, k: int, count: int):
        self.k, self.count = k, count

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if isinstance(error, ScheduleError):
            raise ScheduleError(error.code, f"item {self.k} of {self.count:,}: {error.message}", error.mend) from None
        if isinstance(error, TypeError):
            raise TypeError(f"item {self.k} of {self.count:,}: {error}") from None
        return False


def _id(id: object) -> str:
    if not isinstance(id, str) or not id or not is_text(id):
        import reprlib

        raise ScheduleError("schedule.id_invalid", f"{reprlib.repr(id)} is not an id of a schedule handed over",
                            "cancel with the string items.calendar, items.every or items.once returned")
    return id


def _runs(retry: object, limit: object) -> dict:
    """What the entry keeps of `retry` and `limit` where given: an entry without them, and so
    its id, is as before. The hand-over cannot tell whether queues are bound: pauses of a minute."""
    from .kinds.rules import Refused, limit_of, retry_of

    try:
        kept = {} if retry is None else retry_of(_text("retry", retry), False).settings()
        return kept | ({} if limit is None else {"limit_ms": limit_of(_text("limit", limit))})
    except Refused as refused:
        raise ScheduleError(refused.code, refused.message, refused.mend) from None


def _text(item: str, value: object) -> str:
    if not isinstance(value, str):
        raise ScheduleError(f"schedule.{item}_invalid", f"`{item}` of {value!r} is not a string",
                            'write e.g. retry="3 after 1m", limit="2m"')
    return value


def _action(action: object) -> str:
    """The key of an `async def` action of the app. Only a function is taken, so nothing an app
    hands over (a name, say) is imported to find out what it is."""
    import inspect
    import reprlib

    mend = "hand over an `async def` action of the app that takes no parameters: the function itself"
    if not inspect.isfunction(action):
        raise ScheduleError("schedule.run_invalid", f"the action {reprlib.repr(action)} is not a function", mend)
    key = action_key(action)
    found = action_of(key)
    if found is None:
        raise ScheduleError("schedule.run_invalid", f"`{key}` is not an action of the app",
                            mend + ", defined at the top level of a module")
    if not inspect.iscoroutinefunction(found) or inspect.signature(found).parameters:
        raise ScheduleError("schedule.run_invalid", f"`{key}` is not an `async def` action without parameters",
                            mend + "; it reads `call.input` and `call.at`")
    return key


def _input(value: object) -> str:
    try:
        text, size = json_text(value)
    except NotJSON as error:
        raise ScheduleError("schedule.input_invalid", f"the input is not JSON tickwork can keep: {error}",
                            "hand over dicts, lists, strings, numbers, booleans and None") from None
    if size > _LARGEST_INPUT:
        raise ScheduleError("schedule.input_invalid", f"the input is {size} bytes as JSON (UTF-8)",
                            f"keep it within {_LARGEST_INPUT} bytes: hand over ids, not records")
    return text


def _label(label: object) -> str | None:
    """A label as kept: None, or a line of 1 to LONGEST_LABEL characters of Unicode text that
    shows something: not only spaces and zero-width characters."""
    if label is None:
        return None
    mend = (f"label it with a string of 1 to {LONGEST_LABEL} characters (code points) on one line, with no control "
            "characters or bidirectional marks, and not only spaces, e.g. the customer's name")
    if not isinstance(label, str):
        raise ScheduleError("schedule.label_invalid", f"the label {reprlib.repr(label)} is not a string", mend)
    if not label or len(label) > LONGEST_LABEL:
        raise ScheduleError("schedule.label_invalid", f"the label is {len(label)} characters long", mend)
    if not is_text(label) or _UNSHOWN.search(label):
        raise ScheduleError("schedule.label_invalid", f"the label {reprlib.repr(label)} holds a control "
                            "character, a line break, a bidirectional mark or a lone surrogate", mend)
    if all(c.isspace() or unicodedata.category(c) == "Cf" for c in label):
        raise ScheduleError("schedule.label_invalid", f"the label {reprlib.repr(label)} is only spaces and "
                            "zero-width characters: it would show as nothing", mend)
    return label


def _cron(expression: object) -> str:
    if not isinstance(expression, str):
        raise ScheduleError("schedule.cron_invalid", f"the cron expression {expression!r} is not a string",
                            'write e.g. "0 9 * * 1"')
    return _checked_cron(expression)


@lru_cache(maxsize=CACHED)  # an expression is checked once, not at each hand-over of it
def _checked_cron(expression: str) -> str:
    from .kinds.cron_syntax import CronInvalid, parse

    try:
        fields = parse(expression)
    except CronInvalid as error:
        raise ScheduleError(error.code, str(error), error.mend) from None
    seconds_within_target(fields, f"`{expression}`'s")
    return expression


def _zone(zone: object) -> str:
    return zone_checked(zone, repr(zone))


def _choice(item: str, value: object, allowed: tuple[str, ...]) -> str:
    return choice_checked(value, allowed, f"`{item}` of {value!r}", f"{item}={allowed[0]!r}")


def _ms(item: str, value: object, code: str) -> int:
    if type(value) is not int or not within_bounds(value):
        raise ScheduleError(code, f"`{item}` of {value!r} is not a whole number of milliseconds above zero",
                            f"give `{item}` in milliseconds, at most {LONGEST} (a century)")
    return value


def _every(every: object) -> int:
    if isinstance(every, str):
        every = duration_ms(every) or every  # still a string where it is no duration: refused below
    return _ms("every", every, "schedule.every_invalid")


def _moment(item: str, value: object) -> int:
    if type(value) is not int or not 0 <= value < NEVER:
        raise ScheduleError(f"schedule.{item}_invalid", f"`{item}` of {value!r} is not a moment in epoch milliseconds",
                            f"give `{item}` as an int of milliseconds since the epoch, e.g. clock.now_ms + 3600000")
    return value
