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
comes back under that id. It ends when cancelled, when `expires` passes, or when its action is
no longer in the app. Bad arguments raise ScheduleError with the build's codes, nothing written.
Hand-over and cancel are one statement each. An id reads `send_statement@3f2a...`.
"""

import json
from typing import Callable

from .app import action_key, action_of, timing_of
from .calendars import NONEXISTENT, REPEATED, CronCalendar
from .database import Database
from .json_values import NotJSON, ascii_json, is_text, json_text
from .model import Action, ScheduleError
from .schedule_store import ScheduleStore
from .times import LONGEST, MINUTE, NEVER, duration_ms
from .zones import is_zone

_LARGEST_INPUT = 64 * 1024  # UTF-8 bytes of its JSON; D1 takes 100 KB a statement


class Items:
    def __init__(self, db: Database, now: Callable[[], int]):
        """`now` gives the time a hand-over counts from, epoch ms: the tick's inside a run."""
        self.store = ScheduleStore(db)
        self.now = now

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
    ) -> str:
        """Calls `action` at each moment of `cron` (5 fields, or 6 with seconds first) read in
        `zone`; `overdue` (ms) bounds how late a call may be; `expires` (epoch ms) ends it.
        `retry="3 after 1m"` and `limit="2m"` as a declared schedule's (pauses of a minute or more)."""
        entry = {
            "kind": "calendar",
            "cron": _cron(cron),
            "zone": _zone(zone),
            "nonexistent": _choice("nonexistent", nonexistent, NONEXISTENT),
            "repeated": _choice("repeated", repeated, REPEATED),
            "overdue_ms": None if overdue is None else _ms("overdue", overdue, "schedule.overdue_invalid"),
        }
        if CronCalendar(entry["cron"], entry["zone"]).next_after(self.now()) is None:
            raise ScheduleError("schedule.cron_invalid", f"`{cron}` never comes due",
                                "name a date that exists, e.g. not the 30th of February")
        return await self._hand_over(action, input, entry | _runs(retry, limit), expires)

    async def every(self, action: Action, input: object, every: int | str, *, expires: int | None = None,
                    retry: str | None = None, limit: str | None = None) -> str:
        """Calls `action` every `every` (ms, or `15m`, `1h`, `1d`), the first one `every` from now."""
        ms = _every(every)
        if ms < MINUTE:
            raise ScheduleError("deployable.target_unsupported",
                                f"every {ms} ms is under a minute; a Worker ticks once a minute",
                                "hand over every 60000 ms (1m) or more")
        return await self._hand_over(action, input, {"kind": "schedule", "every_ms": ms} | _runs(retry, limit), expires)

    async def once(self, action: Action, input: object, at: int) -> str:
        """Calls `action` once, at `at` (epoch ms), or at the first tick after it."""
        return await self._hand_over(action, input, {"kind": "once", "at_ms": _moment("at", at)}, None)

    async def cancel(self, id: str) -> bool:
        """Ends the schedule handed over under `id`; False when there is none going on."""
        if not isinstance(id, str) or not id or not is_text(id):
            import reprlib

            raise ScheduleError("schedule.id_invalid", f"{reprlib.repr(id)} is not an id of a schedule handed over",
                                "cancel with the string items.calendar, items.every or items.once returned")
        return await self.store.cancel(id, self.now())

    async def _hand_over(self, action: Action, input: object, entry: dict, expires: int | None) -> str:
        key = _action(action)
        body = _input(input)
        kept_escaped = ascii_json(input)  # ids are derived as before: every non-ASCII and DEL escaped
        expires = None if expires is None else _moment("expires", expires)
        timing = timing_of(entry)
        now = self.now()
        entry_text = json.dumps(entry, sort_keys=True)
        # The action's name first, for logs; `@` keeps ids apart from every declared name.
        id = f"{key.rpartition('.')[2].rpartition(':')[2]}@{_digest(json.dumps([key, kept_escaped, entry_text, expires]))}"
        await self.store.hand_over(id, key, entry_text, body, timing.form, timing.every_ms,
                                   timing.first_due(now), expires, now)
        return id


def _runs(retry: object, limit: object) -> dict:
    """What the entry keeps of `retry` and `limit` where given: an entry without them, and so
    its id, is as before. The hand-over cannot tell whether queues are bound: pauses of a minute."""
    from .retries import Refused, limit_of, retry_of

    try:
        kept = {} if retry is None else {"retry_attempts": (r := retry_of(_text("retry", retry), False)).attempts,
                                         "retry_pause_ms": r.pause}
        return kept | ({} if limit is None else {"limit_ms": limit_of(_text("limit", limit))})
    except Refused as refused:
        raise ScheduleError(refused.code, refused.message, refused.mend) from None


def _text(item: str, value: object) -> str:
    if not isinstance(value, str):
        raise ScheduleError(f"schedule.{item}_invalid", f"`{item}` of {value!r} is not a string",
                            'write e.g. retry="3 after 1m", limit="2m"')
    return value


def _digest(text: str) -> str:
    import hashlib  # at first use: a Worker's cold start skips it

    return hashlib.sha256(text.encode()).hexdigest()[:32]


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


def _cron(expression: object) -> str:
    from .cron_syntax import CronInvalid, parse

    if not isinstance(expression, str):
        raise ScheduleError("schedule.cron_invalid", f"the cron expression {expression!r} is not a string",
                            'write e.g. "0 9 * * 1"')
    try:
        fields = parse(expression)
    except CronInvalid as error:
        raise ScheduleError(error.code, str(error), error.mend) from None
    if len(fields) == 6 and len(fields[0]) > 1:
        raise ScheduleError("deployable.target_unsupported",
                            f"`{expression}`'s seconds field comes due more than once a minute; a Worker ticks once a minute",
                            "name one second, e.g. `0` for the first, or use 5 fields")
    return expression


def _zone(zone: object) -> str:
    if not is_zone(zone):
        raise ScheduleError("schedule.zone_invalid", f"{zone!r} is not an IANA time zone of the vendored tzdata",
                            "name a zone such as `Europe/Berlin` or `America/New_York`")
    return zone


def _choice(item: str, value: object, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise ScheduleError("schedule.dst_invalid", f"`{item}` of {value!r} is none of {', '.join(allowed)}",
                            f"write {item}={allowed[0]!r} or one of: {', '.join(allowed)}")
    return value


def _ms(item: str, value: object, code: str) -> int:
    if type(value) is not int or not 0 < value <= LONGEST:
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
