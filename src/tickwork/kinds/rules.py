"""What a schedule may be, checked once for the build and for schedules handed over at run time.

Each check raises ScheduleError with its documented code, what is wrong and how to mend it. The
build says where (file:line and the schedule's name, tickwork_build.schedules); a hand-over in
bulk says which item (`item 7 of 10: ...`, per_item). Each path quotes the value as its user
wrote it (`every:` of 30s in a .jadpo file, `every 30000 ms` to `items.every`): the caller passes
that as `said`, and the check says the rest.

The Workers target: a Worker ticks once a minute (and at each 10-second mark while queues are
bound), so nothing may come due more often than once a minute.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

from ..errors import Invalid, ScheduleError
from ..model import RUN_LIMIT, WORKFLOW_LIMIT, Retry
from ..times import LONGEST, MINUTE, NEVER, SECOND, duration_ms, whole
from .zones import is_zone

if TYPE_CHECKING:
    from . import Timing

TARGET = "deployable.target_unsupported"
TICKS = "a Worker ticks once a minute"

MOST_ATTEMPTS = 10
SHORTEST_PAUSE = 10 * SECOND  # a Worker with queues bound ticks again at each 10-second mark

_RETRY = re.compile(r"\s*([0-9]+)\s+after\s+(\S+)(?:\s+up\s+to\s+(\S+))?(?:\s+jitter\s+(\S+))?\s*")
_RETRY_HEAD = re.compile(r"\s*[0-9]+\s+after\s+\S+")
_EXCEPT = re.compile(r"\s+except(?:\s+|$)")
_CODE = re.compile(r"[A-Za-z0-9_.:-]+")
RETRY_SYNTAX = "`retry: 8 after 1m up to 30m jitter 30s except invalid_input, not_found`"


# What `retry_of` and `limit_of` raise: a `retry:` or `limit:` the Worker cannot honour (the old name).
Refused = Invalid


def every_within_target(ms: int, said: str, mend: str) -> int:
    """An interval of a minute or more."""
    if ms < MINUTE:
        raise ScheduleError(TARGET, f"{said} is under a minute; {TICKS}", mend)
    return ms


def seconds_within_target(fields: tuple[frozenset[int], ...], said: str) -> None:
    """A cron's seconds field, where it has one, names one second a minute (`fields` as
    cron_syntax.parse reads them)."""
    if len(fields) == 6 and len(fields[0]) > 1:
        raise ScheduleError(TARGET, f"{said} seconds field comes due more than once a minute; {TICKS}",
                            "name one second, e.g. `0` for the first, or use 5 fields")


def intervals_within_cycle(cycle: int, intervals: int) -> None:
    """A pulse's shares are a second long at the least."""
    if intervals * SECOND > cycle:
        raise ScheduleError("schedule.intervals_invalid",
                            f"`intervals: {intervals}` is more than the cycle's {cycle // SECOND} seconds",
                            "make `intervals` at most `cycle`")


def share_within_target(cycle: int, intervals: int) -> None:
    """A pulse's share is a minute long at the least."""
    if cycle < MINUTE * intervals:
        raise ScheduleError(TARGET, f"a share of {cycle / intervals / 1000:g}s is under a minute; {TICKS}",
                            "make `cycle` / `intervals` at least 60 seconds")


def comes_due(timing: Timing, tick: int, said: str, starts: int | None = None) -> int:
    """The due time of a timing first seen at `tick` (none before `starts`): a calendar whose
    cron names no date that exists (the 30th of February) has none, and is refused."""
    due = timing.first_due_from(tick, starts)
    if due >= NEVER:
        raise ScheduleError("schedule.cron_invalid", f"{said} never comes due",
                            "name a date that exists, e.g. not the 30th of February")
    return due


def zone_checked(zone: object, said: str, write: str = "name") -> str:
    """A zone of the vendored tzdata: the Worker's own zones (zones.py). `write` is the mend's
    verb as the caller's user has always read it (the build's `write`, a hand-over's `name`)."""
    if not is_zone(zone) or not isinstance(zone, str):
        raise ScheduleError("schedule.zone_invalid", f"{said} is not an IANA time zone of the vendored tzdata",
                            f"{write} a zone such as `Europe/Berlin` or `America/New_York`")
    return zone


def choice_checked(value: object, allowed: tuple[str, ...], said: str, first_written: str,
                   code: str = "schedule.dst_invalid") -> str:
    """One of the values allowed: a daylight-saving rule (`nonexistent`, `repeated`), or what
    else has a few; `first_written` is the first of them as the caller's user writes it."""
    if not isinstance(value, str) or value not in allowed:
        raise ScheduleError(code, f"{said} is none of {', '.join(allowed)}",
                            f"write {first_written} or one of: {', '.join(allowed)}")
    return value


def within_bounds(ms: int) -> bool:
    """A duration tickwork keeps: above zero, and at most a century."""
    return 0 < ms <= LONGEST


def retry_of(text: str, queues: bool) -> Retry:
    """`N after D [up to D] [jitter D] [except code, ...]` as a Retry; pauses under a minute only
    where the app has queues bound. Each refusal names the part that is wrong."""
    code, said = "schedule.retry_invalid", f"`retry: {text}`"
    head, *tail = _EXCEPT.split(text, maxsplit=1)
    match = _RETRY.fullmatch(head)
    attempts = whole(match.group(1)) if match else None
    started = _RETRY_HEAD.match(head)
    if match is None and started is not None:  # `N after D` read, the rest not
        raise Invalid(code, f"{said}: `{head[started.end():].strip()}` is not `up to C`, then `jitter J`, "
                      "then `except` codes, in that order", f"write the parts in that order: {RETRY_SYNTAX}")
    if match is None or attempts is None:
        raise Invalid(code, f"{said} is not a number of attempts more and the first pause",
                      "write e.g. `retry: 3 after 1m`: three attempts more, after 1m, 2m and 4m; "
                      f"in full, {RETRY_SYNTAX}")
    pause, ceiling, jitter = (_part(match.group(k), part, said) for k, part in
                              ((2, "its first pause"), (3, "its ceiling (`up to`)"), (4, "its jitter")))
    assert pause is not None  # the pattern requires it
    if not 1 <= attempts <= MOST_ATTEMPTS:
        raise Invalid(code, f"{said} asks for {attempts} attempts more", f"ask for 1 to {MOST_ATTEMPTS}")
    if ceiling is not None and ceiling < pause:
        raise Invalid(code, f"{said}: its ceiling (`up to {match.group(3)}`) is shorter than its first pause",
                      f"make the ceiling at least {match.group(2)}, or drop `up to`")
    retry = Retry(attempts, pause, ceiling, jitter or 0, _codes(tail[0], said) if tail else ())
    if retry.grown(attempts) + retry.jitter > LONGEST:
        raise Invalid(code, f"{said}: its last pause is longer than a hundred years",
                      "ask for fewer attempts, a shorter pause or a ceiling (`up to 1d`)")
    if pause < SHORTEST_PAUSE or (pause < MINUTE and not queues):
        ticks = "each 10-second mark" if queues else "once a minute (each 10-second mark with queues bound)"
        raise Invalid(TARGET, f"{said} pauses under {'10 seconds' if queues else 'a minute'}; "
                      f"a Worker ticks {ticks}", "pause at least 1m, or 10s with queues bound")
    return retry


def _part(written: str | None, part: str, said: str) -> int | None:
    """A duration of the rule, in ms (None where not written), refused naming its part."""
    if written is None:
        return None
    ms = duration_ms(written)
    if ms is None:
        raise Invalid("schedule.retry_invalid", f"{said}: {part}, `{written}`, is not a duration",
                      "write a whole number with s, m, h or d, e.g. `30s` or `1m`")
    return ms


def _codes(written: str, said: str) -> tuple[str, ...]:
    """The codes of `except a, b`: an action's own or tickwork's, never `lease_expired`."""
    codes = tuple(code.strip() for code in written.split(","))
    for code in codes:
        if not _CODE.fullmatch(code):
            raise Invalid("schedule.retry_invalid", f"{said}: `except` names {code or 'nothing'!r}, not a code",
                          "name one or more codes, comma-separated: `except invalid_input, not_found`")
        if code == "lease_expired":
            raise Invalid("schedule.retry_invalid", f"{said}: `except lease_expired`: a run whose worker was lost "
                          "may not have run at all, and is always retried", "remove `lease_expired` from `except`")
    return tuple(dict.fromkeys(codes))


# What a due time that finds the schedule's previous run still going does: skipped, recorded
# `running` (an `every:` schedule's and a pulse's rule), kept waiting until that run ends, at
# most one (a calendar's rule), or run anyway, side by side (`allow`); unset, the kind's own rule.
OVERLAPS = ("skip", "buffer", "allow")


def overlap_of(value: object, said: str) -> str:
    """`overlap: allow`, checked; `said` quotes it as its user wrote it."""
    return choice_checked(value, OVERLAPS, said, "`overlap: skip`", "schedule.overlap_invalid")


def overlap_on_pulse(overlap: object) -> None:
    """A pulse's overlap: the pulses document says a pulse is not called while its previous call
    is still running, so it never runs side by side."""
    if overlap == "allow":
        raise ScheduleError("schedule.overlap_pulse", "`overlap: allow` on a pulse: a pulse is not called while "
                            "its previous call is still running",
                            "write `overlap: skip` (its own rule) or `overlap: buffer`, or declare it a "
                            "`schedule:` with `every:` to run its calls side by side")


def limit_of(text: str, workflow: bool = False) -> int:
    """`limit: 2m` in ms: at most the run limit of 15 minutes; for a run through a Workflow
    (`workflow:`), at most WORKFLOW_LIMIT (30 days)."""
    ms = duration_ms(text.strip())
    most = WORKFLOW_LIMIT if workflow else RUN_LIMIT
    if ms is not None and ms <= most:
        return ms
    if workflow:
        raise Invalid("schedule.limit_invalid", f"`limit: {text}` is not a duration up to 30d",
                      "write e.g. `limit: 6h`; a Workflow's instance is terminated at 30 days whatever its limit")
    raise Invalid("schedule.limit_invalid", f"`limit: {text}` is not a duration up to 15m",
                  "write e.g. `limit: 2m`; a run is stopped at 15 minutes whatever its limit")


STARTS_MEND = "write the moment with its offset, e.g. `starts: 2027-01-04T09:00:00Z` or `2027-01-04T09:00:00+01:00`"


def starts_of(text: str) -> int:
    """`starts: 2027-01-04T09:00:00Z` in epoch ms: an ISO 8601 moment with its offset, so it
    names one instant whatever the zone a reader is in."""
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise Invalid("schedule.starts_invalid", f"`starts: {text}` is not an ISO 8601 moment", STARTS_MEND) from None
    if moment.tzinfo is None:
        raise Invalid("schedule.starts_invalid", f"`starts: {text}` has no offset: it names no one instant",
                      STARTS_MEND)
    ms = int(moment.timestamp() * 1000)
    if not 0 <= ms < NEVER:
        raise Invalid("schedule.starts_invalid", f"`starts: {text}` is before 1970 or past 9999", STARTS_MEND)
    return ms
# A calendar's skip dates, its own and those of the lists it names, are at most this many: a
# decade of a country's holidays, kept in each of its entries.
MOST_SKIP_DATES = 1000
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_LIST = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def skip_date_checked(value: object, said: str, lists: bool = True) -> str:
    """A date written YYYY-MM-DD that exists (a TOML date too), as YYYY-MM-DD; `lists`: where
    names of lists may stand beside dates, so the mend says so."""
    text = value.isoformat() if isinstance(value, date) and not isinstance(value, datetime) else value
    try:
        if isinstance(text, str) and _DATE.fullmatch(text):
            return date.fromisoformat(text).isoformat()
    except ValueError:
        pass
    raise ScheduleError("schedule.skip_date_invalid", f"{said}: {value!r} is not a date written YYYY-MM-DD",
                        "write a date that exists, e.g. `2026-12-25`" + (
                            ", or the name of a list of dates" if lists else
                            "; a schedule handed over takes dates alone, not the names of lists"))


def skip_dates_of(given: Iterable[object], lists: Mapping[str, Sequence[str]] | None, said: str) -> dict[str, str]:
    """The skip dates `given` names, dates and names of `lists` mixed, each with the list it came
    from ("" for a date given alone), sorted; at most MOST_SKIP_DATES. `lists` None: dates alone
    (a schedule handed over, which no build reads)."""
    found: dict[str, str] = {}
    for value in given:
        if lists is None:
            found.setdefault(skip_date_checked(value, said, lists=False), "")
        elif isinstance(value, str) and _LIST.fullmatch(value):
            if value not in lists:
                named = ", ".join(sorted(lists)) or "none"
                raise ScheduleError("schedule.skip_list_unknown", f"{said}: no list of dates is named `{value}` "
                                    f"(named: {named})", f"declare it in pyproject.toml: `[tool.tickwork.dates]` "
                                    f'`{value} = ["2026-12-25"]`, or name one of those declared')
            for day in lists[value]:
                found.setdefault(day, value)
        else:
            found.setdefault(skip_date_checked(value, said), "")
    skip_dates_within_bound(len(found), said)
    return dict(sorted(found.items()))


def skip_dates_within_bound(count: int, said: str) -> None:
    if count > MOST_SKIP_DATES:
        raise ScheduleError("schedule.skip_dates_too_many", f"{said} names {count:,} dates; a calendar skips "
                            f"{MOST_SKIP_DATES:,} at the most", "keep the dates of the years ahead; drop those past")
