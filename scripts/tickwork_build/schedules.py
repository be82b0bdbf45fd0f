"""Validates declarations and turns them into what the Worker loads.

Three kinds: `schedule` (`every:` and `run:`, nothing else), `calendar` (a cron expression in a
zone) and `pulse` (a cycle from the Unix epoch split into shares); a `purge` is read in
`purges.py`, and is written as a Spec of kind "purge". Each item is checked on its
own, so no bad item hides another's problem; what needs several items (intervals within the
cycle, the Workers target) is checked on those that are valid. Each problem a user can cause
carries its documented code.
"""

import inspect
import re
import time
from types import ModuleType
from typing import Callable, Collection, Literal, Mapping

from pydantic import BaseModel, ConfigDict

from tickwork.kinds.calendar import NONEXISTENT, REPEATED, Calendar, compiled_cron, cron_calendar
from tickwork.kinds.cron_syntax import MEND as CRON_MEND
from tickwork.kinds.cron_syntax import parse as cron_fields
from tickwork.kinds.cron_syntax import shown
from tickwork.errors import Invalid, ScheduleError  # one item's problem: its code, what is wrong, the mend
from tickwork.kinds.rules import (
    choice_checked, comes_due, every_within_target, intervals_within_cycle, limit_of, overlap_of, retry_of,
    overlap_on_pulse, seconds_within_target, share_within_target, skip_dates_of, starts_of, within_bounds, zone_checked,
)
from tickwork.times import LONGEST, SECOND, duration_ms, utc, whole
from tickwork.kinds.forms import timing_of
from tickwork.kinds.jitter import jitter_ms, jitter_within
from tickwork.kinds.concurrency import declared_of as declared_concurrency

from .declaration import Declaration, Item
from .problems import Problem
from .workflows import run_or_workflow, workflow_of

CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*\)")


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text




def _duration(code: str, item: str, example: str, bare_seconds: bool):
    """A whole number above zero of s, m, h or d (or, where `bare_seconds`, of seconds alone) in ms."""

    def check(text: str) -> int:
        text = _unquoted(text)
        ms = duration_ms(text, bare_seconds)
        if ms is None:
            unit = "seconds, or of s, m, h or d" if bare_seconds else "s, m, h or d"
            raise Invalid(code, f"`{item}: {shown(text)}` is not a whole number above zero of {unit}",
                          f"write e.g. `{item}: {example}`")
        if not within_bounds(ms):
            raise Invalid(code, f"`{item}: {shown(text)}` is longer than a hundred years",
                          f"write at most `{item}: 36500d`")
        return ms

    return check


def _run(text: str, module: ModuleType | None, domain: str, package: str) -> str:
    """The action a `run:` calls: an `async def` of the domain's package, named in `module`."""
    match = CALL.fullmatch(text)
    if not match:
        raise Invalid("schedule.run_invalid", f"`run: {shown(text)}` is not a call, with no arguments, of an action",
                      "write the action's name and `()`, e.g. `run: tidy_up()`")
    name = match.group(1)
    action = getattr(module, name, None) if module is not None else None
    if action is None or not _within(getattr(action, "__module__", None), package):
        raise Invalid("schedule.run_invalid", f"`{name}` is not an action of domain `{domain}`",
                      f"define `async def {name}():` in domain `{domain}`'s module")
    if not inspect.iscoroutinefunction(action):
        raise Invalid("schedule.run_invalid", f"action `{name}` is not an `async def` function",
                      f"declare it as `async def {name}():`")
    if inspect.signature(action).parameters:
        raise Invalid("schedule.run_invalid", f"action `{name}` takes parameters; it is called with none",
                      f"make it `async def {name}():`; read `call.at`, `call.n`, `call.i` inside")
    return name


def _within(module: str | None, package: str) -> bool:
    """Whether a module is the domain's package or one of its modules."""
    return module is not None and (module == package or module.startswith(package + "."))


def _cron(text: str) -> str:
    expression = _unquoted(text)
    try:
        compiled_cron(expression)
    except (ValueError, KeyError, TypeError) as error:
        raise Invalid("schedule.cron_invalid", f"`cron: {shown(expression)}` does not parse: {error}",
                      getattr(error, "mend", CRON_MEND)) from None
    comes_due(Calendar(cron_calendar(expression)), SINCE, f"`cron: {expression}`")
    return expression


SINCE = utc("2000-01-01 00:00")  # whether a cron comes due is asked from here: a moment long past


def _zone(text: str) -> str:
    zone = _unquoted(text)
    return zone_checked(zone, f"`zone: {shown(zone)}`", "write")


def _choice(code: str, item: str, allowed: tuple[str, ...]) -> Callable[[str], str]:
    def check(text: str) -> str:
        value = _unquoted(text)
        return choice_checked(value, allowed, f"`{item}: {shown(value)}`", f"`{item}: {allowed[0]}`", code)

    return check


def _intervals(text: str) -> int:
    value = _unquoted(text)
    code, said = "schedule.intervals_invalid", f"`intervals: {shown(value)}`"
    if not whole(value):
        raise Invalid(code, f"{said} is not a whole number of at least 1", "write e.g. `intervals: 24`")
    if whole(value) > LONGEST // SECOND:
        raise Invalid(code, f"{said} is more than the longest cycle's seconds", "make `intervals` at most `cycle`")
    return whole(value)


# How each item is read; `run:` is read against the declaration's module.
CHECKS = {
    "every": _duration("schedule.every_invalid", "every", "15m", False),
    "cron": _cron,
    "zone": _zone,
    "overdue": _duration("schedule.overdue_invalid", "overdue", "3600", True),
    "nonexistent": _choice("schedule.dst_invalid", "nonexistent", NONEXISTENT),
    "repeated": _choice("schedule.dst_invalid", "repeated", REPEATED),
    "cycle": _duration("schedule.cycle_invalid", "cycle", "300", True),
    "intervals": _intervals,
    "overlap": lambda text: overlap_of(_unquoted(text), f"`overlap: {shown(_unquoted(text))}`"),
    "jitter": lambda text: jitter_ms(_unquoted(text), "`jitter:`"),  # `every:` and calendars (kinds.jitter)
    "concurrency": lambda text: declared_concurrency(_unquoted(text)),  # (key or None: the action's, limit)
    "workflow": lambda text: workflow_of(_unquoted(text), ()),  # read against the Worker's bindings
}


def _limit(text: str) -> int:
    return limit_of(_unquoted(text))

def _retry(text: str, queues: bool) -> dict:
    return retry_of(_unquoted(text), queues).settings()


def _skip(text: str, dates: Mapping[str, tuple[str, ...]]) -> dict[str, str]:
    """`skip: holidays, 2026-07-04`: dates and names of lists, mixed."""
    given = [_unquoted(part.strip()) for part in _unquoted(text).split(",")]
    return skip_dates_of(given, dates, f"`skip: {shown(_unquoted(text))}`")


# Opt-in items every kind holds: retries of a failed run, the run's own time limit, the moment
# before which it makes no call, and what a due time the previous run still holds does (unset: the
# kind's own rule).
RUNS = {"retry": None, "limit": None, "starts": None, "overlap": None, "concurrency": None, "workflow": None}

REQUIRED = object()
# The items each kind holds, each with its value where it is not written (REQUIRED: it must be).
ITEMS = {
    "schedule": {"every": REQUIRED, "overdue": None, "run": REQUIRED, **RUNS, "jitter": None},
    "calendar": {"cron": REQUIRED, "zone": "UTC", "overdue": None, "nonexistent": "shift", "repeated": "first",
                 "skip": None, "run": REQUIRED, **RUNS, "jitter": None},
    "pulse": {"cycle": REQUIRED, "intervals": 1, "overdue": None, "run": REQUIRED, **RUNS},
}

_MISSING = {
    "every": ("schedule.every_invalid", "add e.g. `every: 15m`"),
    "run": ("schedule.run_invalid", "add e.g. `run: tidy_up()`"),
    "cron": ("schedule.cron_invalid", 'add e.g. `cron: "0 9 * * 1"`'),
    "cycle": ("schedule.cycle_invalid", "add e.g. `cycle: 300`"),
}


class Spec(BaseModel):
    """A valid declaration, as the build writes it for the Worker."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["schedule", "calendar", "pulse", "purge"]
    name: str
    domain: str | None = None  # a purge has none: the runtime supplies its action
    module: str | None = None
    action: str | None = None
    source: str
    every_ms: int | None = None
    cron: str | None = None
    zone: str | None = None
    overdue_ms: int | None = None
    nonexistent: str | None = None
    repeated: str | None = None
    cycle_ms: int | None = None
    intervals: int | None = None
    table: str | None = None  # a purge's: the app's table, the column holding each row's time,
    column: str | None = None  # how it holds it (epoch_ms, epoch_s, iso), and the age rows go at
    format: str | None = None
    after_ms: int | None = None
    after_setting: str | None = None  # or the setting (a Worker var) the age is read from at run time
    retry_attempts: int | None = None  # `retry: 3 after 1m`: attempts more, and the first pause
    retry_pause_ms: int | None = None
    retry_ceiling_ms: int | None = None  # `up to 30m`, `jitter 30s`, `except invalid_input, not_found`
    retry_jitter_ms: int | None = None
    retry_except: list[str] | None = None
    limit_ms: int | None = None  # `limit: 2m`
    workflow: str | None = None  # `workflow: REPORTS`: the Workflow binding its run creates an instance of
    jitter_ms: int | None = None  # `jitter: 5m`
    starts_ms: int | None = None  # `starts: 2027-01-04T09:00:00Z`
    overlap: str | None = None  # `overlap: buffer`; unset, the kind's own rule
    concurrency_key: str | None = None  # `concurrency: api:acme 4`; unset with a limit: the action's own key
    concurrency_limit: int | None = None  # `concurrency: 4`
    skip: dict[str, str] | None = None  # `skip: holidays, 2026-07-04`: each date, with the list it came from or ""

    def manifest_entry(self) -> dict:
        entry = self.model_dump(exclude_none=True)
        if self.kind == "purge":  # in the order a purge is declared, then its schedule's
            return {key: entry[key] for key in PURGE_ENTRY if key in entry}
        return entry


PURGE_ENTRY = ("kind", "name", "table", "column", "format", "after_ms", "after_setting", "every_ms", "source")


def validate_declaration(
    declaration: Declaration, module: ModuleType | None, package: str, queues: bool = False,
    dates: Mapping[str, tuple[str, ...]] | None = None, workflows: Collection[str] = (),
) -> tuple[Spec | None, list[Problem]]:
    """Every problem of one declaration, whose `run:` names an action of `module` (None where it
    failed to import) defined in the domain's `package`; its Spec where it has none. `queues`:
    the app has queues bound, so its Worker ticks at each 10-second mark; `dates`, the named
    lists of skip dates (dates.py)."""
    holds = ITEMS[declaration.kind]
    written: dict[str, Item] = {}
    problems = []
    for item in declaration.items:
        if item.key not in holds:
            allowed = ", ".join(f"`{key}:`" for key in holds)
            problems.append(_problem(declaration, "schedule.item_invalid", item.line,
                                     f"a {declaration.kind} holds only {allowed}, not `{item.key}:`",
                                     f"remove `{item.key}:`"))
        elif item.key in written:
            problems.append(_problem(declaration, "schedule.item_invalid", item.line,
                                     f"`{item.key}:` is given twice", f"keep one `{item.key}:`"))
        else:
            written[item.key] = item
    values = {}
    problems += [_problem(declaration, *said) for said in run_or_workflow(written)]
    for key, default in holds.items():
        if key not in written:
            if key == "run" and "workflow" in written:
                continue  # the run creates the Workflow's instance
            if default is REQUIRED:
                code, mend = _MISSING[key]
                problems.append(_problem(declaration, code, declaration.line,
                                         f"the {declaration.kind} has no `{key}:`", mend))
            else:
                values[key] = default
            continue
        item = written[key]
        try:
            if key == "run":
                values[key] = _run(item.value, module, declaration.domain, package)
            elif key == "retry":
                values[key] = _retry(item.value, queues)
            elif key == "limit":
                values[key] = limit_of(_unquoted(item.value), workflow="workflow" in written)
            elif key == "workflow":
                values[key] = workflow_of(_unquoted(item.value), workflows)
            elif key == "starts":
                values[key] = starts_of(_unquoted(item.value))
            elif key == "skip":
                values[key] = _skip(item.value, dates or {})
            else:
                values[key] = CHECKS[key](item.value)
        except ScheduleError as error:
            problems.append(_problem(declaration, error.code, item.line, error.message, error.mend))
    problems += _together(declaration, values, written)
    if problems:
        return None, problems
    fields = dict(kind=declaration.kind, name=declaration.name, domain=declaration.domain,
                  module=None if values.get("workflow") else declaration.module, action=values.get("run"),
                  workflow=values.get("workflow"), source=f"{declaration.file}:{declaration.line}",
                  limit_ms=values["limit"], starts_ms=values["starts"], overdue_ms=values["overdue"],
                  overlap=values["overlap"], jitter_ms=values.get("jitter"),
                  **(values["retry"] or {}), **_limited(values["concurrency"]))
    if declaration.kind == "schedule":
        fields["every_ms"] = values["every"]
    elif declaration.kind == "calendar":
        fields |= dict(cron=values["cron"], zone=values["zone"], nonexistent=values["nonexistent"],
                       repeated=values["repeated"], skip=values["skip"] or None)
    else:
        fields |= dict(cycle_ms=values["cycle"], intervals=values["intervals"])
    return Spec(**fields), []


def _limited(concurrency: tuple[str | None, int] | None) -> dict[str, object]:
    key, limit = concurrency or (None, None)
    return {"concurrency_key": key, "concurrency_limit": limit}


def _together(declaration: Declaration, values: dict, written: dict[str, Item]) -> list[Problem]:
    """What needs several items, checked on those that are valid: a pulse's intervals within its
    cycle, and the Workers target (kinds.rules), whose minute's cron cannot honour anything due
    more often. A problem is told at the line of the item it names."""
    kind = declaration.kind
    checks: list[tuple[str, Callable[[], object]]] = []
    if kind == "schedule" and "every" in values:
        every = values["every"]
        checks.append(("every", lambda: every_within_target(every, f"`every:` of {every // 1000}s",
                                                            "use `every: 1m` or more")))
    if kind == "pulse" and "cycle" in values and "intervals" in values:
        cycle, intervals = values["cycle"], values["intervals"]
        checks.append(("intervals", lambda: intervals_within_cycle(cycle, intervals)))
        checks.append(("cycle", lambda: share_within_target(cycle, intervals)))
    if kind == "pulse" and values.get("overlap") == "allow":
        checks.append(("overlap", lambda: overlap_on_pulse(values["overlap"])))
    if kind == "calendar" and "cron" in values:
        cron = values["cron"]
        checks.append(("cron", lambda: seconds_within_target(cron_fields(cron), "its")))
    if values.get("jitter") and ("every" in values or "cron" in values):
        jitter, entry = values["jitter"], _timing_entry(kind, values)
        checks.append(("jitter", lambda: jitter_within(timing_of(entry), jitter, "`jitter:`", utc_now())))
    for key, check in checks:
        try:
            check()
        except ScheduleError as error:
            line = written[key].line if key in written else declaration.line
            return [_problem(declaration, error.code, line, error.message, error.mend)]
    return []


def _timing_entry(kind: str, values: dict) -> dict:
    if kind == "schedule":
        return {"kind": kind, "every_ms": values["every"]}
    return {"kind": kind, "cron": values["cron"], "zone": values["zone"], "nonexistent": values["nonexistent"],
            "repeated": values["repeated"], "overdue_ms": None}


def utc_now() -> int:
    return int(time.time() * 1000)


def _problem(declaration: Declaration, code: str, line: int, message: str, mend: str) -> Problem:
    return Problem(code, message, mend, declaration.file, line, declaration.name)
