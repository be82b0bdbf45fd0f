"""The arguments of a hand-over, checked: each check returns what the schedule keeps of an
argument, or raises ScheduleError with the build's code (kinds.rules holds the rules both share)."""

import re
import reprlib
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from .app import action_key, action_of
from .errors import ScheduleError
from .json_values import BIDI_CONTROLS, NotJSON, is_text, json_text
from .kinds.calendar import CACHED, NONEXISTENT, REPEATED
from .kinds.concurrency import entry_of as _limited
from .kinds.rules import (
    choice_checked, every_within_target, seconds_within_target, skip_dates_of, within_bounds, zone_checked,
)
from .times import LONGEST, NEVER, duration_ms

_LARGEST_INPUT = 64 * 1024  # UTF-8 bytes of its JSON; D1 takes 100 KB a statement
LONGEST_LABEL = 200  # characters: a name to show in a table, not a record
# What a label may not hold: controls, line breaks and the bidirectional marks that reorder a line.
_UNSHOWN = re.compile(f"[\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}]")


def _calendar(cron: object, zone: object, overdue: object, nonexistent: object, repeated: object,
              skip: Iterable | None = None) -> dict:
    found = {} if skip is None else skip_dates_of([skip] if isinstance(skip, str) else skip, None, "`skip`")
    return ({"skip": found} if found else {}) | {  # no `skip` kept unless some given: an id stays as it was
        "kind": "calendar",
        "cron": _cron(cron),
        "zone": _zone(zone),
        "nonexistent": _choice("nonexistent", nonexistent, NONEXISTENT),
        "repeated": _choice("repeated", repeated, REPEATED),
        "overdue_ms": None if overdue is None else _ms("overdue", overdue, "schedule.overdue_invalid"),
    }


def _every_entry(every: object, overdue: object = None) -> dict:
    ms = _every(every)
    every_within_target(ms, f"every {ms} ms", "hand over every 60000 ms (1m) or more")
    grace = {} if overdue is None else {"overdue_ms": _ms("overdue", overdue, "schedule.overdue_invalid")}
    return {"kind": "schedule", "every_ms": ms} | grace  # none kept unless given: an id stays as it was


def _once(at: object) -> dict:
    return {"kind": "once", "at_ms": _moment("at", at)}


def _described(item: object, now: int) -> tuple:
    """An item of `hand_over` as (action, input, entry, expires, label)."""
    from .kinds.jitter import jittered_entry

    if not isinstance(item, dict):
        raise TypeError(f"items.hand_over takes dicts of a single call's arguments, not {type(item).__name__}")
    missing = [f"`{name}`" for name in ("action", "input") if name not in item]
    if missing:
        raise TypeError(f"each item of items.hand_over names its {' and '.join(missing)}")
    item = dict(item)
    action, input, label = item.pop("action"), item.pop("input"), item.pop("label", None)
    limited = _limited(item.pop("concurrency", None))
    jitter = item.pop("jitter", None)
    timings = [name for name in ("cron", "every", "at") if name in item]
    if len(timings) != 1:
        raise TypeError("each item of items.hand_over names one of `cron`, `every` or `at`, "
                        f"not {' and '.join(timings) or 'none'}")
    runs = _runs(item.get("retry"), item.get("limit"), item.get("overlap")) \
        | _span(item.get("starts"), item.get("times")) if timings != ["at"] else {}
    if timings == ["cron"]:
        entry = _calendar(**_taken(item, "cron", zone="UTC", overdue=None, nonexistent="shift", repeated="first",
                                   skip=None))
        return action, input, jittered_entry(entry, jitter, now) | runs | limited, item.get("expires"), label
    if timings == ["every"]:
        entry = _every_entry(**_taken(item, "every", overdue=None))
        return action, input, jittered_entry(entry, jitter, now) | runs | limited, item.get("expires"), label
    return action, input, jittered_entry(_once(**_taken(item, "at")), jitter, now) | limited, None, label


RUN_OPTIONS = ("expires", "retry", "limit", "starts", "times", "overlap")  # beside a repeating timing's own arguments


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
                            "give the string items.calendar, items.every, items.once or items.replace returned")
    return id


def _runs(retry: object, limit: object, overlap: object = None, workflow: object = None) -> dict:
    """What the entry keeps of `retry`, `limit`, `overlap` and `workflow` where given: an entry
    without them, and so its id, is as before. The hand-over cannot tell whether queues are bound:
    pauses of a minute. A `workflow` must be a binding of the Worker's env (`limit` then up to 30d)."""
    from .kinds.rules import Refused, limit_of, overlap_of, retry_of

    try:
        kept = {} if retry is None else retry_of(_text("retry", retry), False).settings()
        kept |= {} if overlap is None else {"overlap": overlap_of(overlap, f"overlap={overlap!r}")}
        kept |= {} if workflow is None else {"workflow": _bound(workflow)}
        return kept | ({} if limit is None else {"limit_ms": limit_of(_text("limit", limit), workflow is not None)})
    except Refused as refused:
        raise ScheduleError(refused.code, refused.message, refused.mend) from None


def _bound(workflow: object) -> str:
    """A handed-over item's `workflow=`: a Workflow binding of the Worker's env."""
    from .adapters.workflows import workflow as bound

    try:
        if not isinstance(workflow, str):
            raise LookupError(f"workflow={workflow!r} is not a binding's name")
        bound(workflow)
    except LookupError as error:
        raise ScheduleError("schedule.workflow_unbound", str(error), "name a Workflow binding of "
                            "wrangler.toml's `[[workflows]]`, e.g. workflow=\"REPORTS\"") from None
    return workflow


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


def _span(starts: object, times: object) -> dict:
    """What the entry keeps of `starts` (no call before it) and `times` (ended after that many
    calls made) where given: an entry without them, and so its id, is as before."""
    kept = {} if starts is None else {"starts_ms": _moment("starts", starts)}
    if times is None:
        return kept
    if type(times) is not int or not 1 <= times <= MOST_TIMES:
        raise ScheduleError("schedule.times_invalid", f"`times` of {reprlib.repr(times)} is not a whole number "
                            f"of calls from 1 to {MOST_TIMES:,}", "give `times` as an int, e.g. times=12")
    return kept | {"times": times}


MOST_TIMES = 1_000_000  # calls: more is no count, leave `times` out
