"""Validates declarations with pydantic and turns them into what the Worker loads.

Three kinds: `schedule` (`every:` and `run:`, nothing else), `calendar` (a cron expression in a
zone) and `pulse` (a cycle from the Unix epoch split into shares). Each problem a user can
cause carries its documented code.
"""

import inspect
import re
from datetime import datetime
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Annotated, Literal

from croniter import CroniterBadDateError, croniter
from pydantic import AfterValidator, BaseModel, ConfigDict, ValidationError, ValidationInfo
from pydantic_core import PydanticCustomError

from tickwork.calendars import NONEXISTENT, REPEATED, parse_cron
from tickwork.times import DAY, MINUTE, SECOND, UNITS

from .declaration import Declaration
from .problems import Problem

DURATION = re.compile(r"(\d+)([smhd])")
SECONDS = re.compile(r"\d+")
CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*\)")
# Times cross the D1 binding exactly only up to 2**53 ms; a century keeps every due time far below.
LONGEST = 36_500 * DAY


def _unquoted(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    return text


def _duration(code: str, item: str, example: str, bare_seconds: bool):
    """A whole number above zero of s, m, h or d (or, where `bare_seconds`, of seconds alone) in ms."""

    def check(text: str) -> int:
        text = _unquoted(text)
        match = DURATION.fullmatch(text)
        if match and int(match.group(1)) > 0:
            ms = int(match.group(1)) * UNITS[match.group(2)]
        elif bare_seconds and SECONDS.fullmatch(text) and int(text) > 0:
            ms = int(text) * SECOND
        else:
            unit = "seconds, or of s, m, h or d" if bare_seconds else "s, m, h or d"
            raise PydanticCustomError(
                code,
                "`{item}: {text}` is not a whole number above zero of {unit}",
                {"item": item, "text": text, "unit": unit, "mend": f"write e.g. `{item}: {example}`"},
            )
        if ms > LONGEST:
            raise PydanticCustomError(
                code,
                "`{item}: {text}` is longer than a hundred years",
                {"item": item, "text": text, "mend": f"write at most `{item}: 36500d`"},
            )
        return ms

    return check


def _run(text: str, info: ValidationInfo) -> str:
    domain: ModuleType | None = info.context["module"]
    domain_name: str = info.context["domain"]
    match = CALL.fullmatch(text)
    if not match:
        raise PydanticCustomError(
            "schedule.run_invalid",
            "`run: {text}` is not a call, with no arguments, of an action",
            {"text": text, "mend": "write the action's name and `()`, e.g. `run: tidy_up()`"},
        )
    name = match.group(1)
    action = getattr(domain, name, None) if domain is not None else None
    if action is None or getattr(action, "__module__", None) != getattr(domain, "__name__", None):
        raise PydanticCustomError(
            "schedule.run_invalid",
            "`{name}` is not an action of domain `{domain}`",
            {
                "name": name,
                "domain": domain_name,
                "mend": f"define `async def {name}():` in domain `{domain_name}`'s module",
            },
        )
    if not inspect.iscoroutinefunction(action):
        raise PydanticCustomError(
            "schedule.run_invalid",
            "action `{name}` is not an `async def` function",
            {"name": name, "mend": f"declare it as `async def {name}():`"},
        )
    if inspect.signature(action).parameters:
        raise PydanticCustomError(
            "schedule.run_invalid",
            "action `{name}` takes parameters; it is called with none",
            {"name": name, "mend": f"make it `async def {name}():`; read `call.at`, `call.n`, `call.i` inside"},
        )
    return name


def _cron(text: str) -> str:
    expression = _unquoted(text)
    try:
        cron = parse_cron(expression)
    except (ValueError, KeyError, TypeError) as error:
        raise PydanticCustomError(
            "schedule.cron_invalid",
            "`cron: {text}` does not parse: {why}",
            {"text": expression, "why": str(error), "mend": 'write 5 fields, or 6 with seconds first, e.g. `cron: "0 9 * * 1"`'},
        ) from None
    try:
        cron.get_next(start_time=datetime(2000, 1, 1))
    except CroniterBadDateError:
        raise PydanticCustomError(
            "schedule.cron_invalid",
            "`cron: {text}` never comes due",
            {"text": expression, "mend": "name a date that exists, e.g. not the 30th of February"},
        ) from None
    return expression


@cache
def _vendored_zones() -> frozenset[str]:
    """The zones of the `tzdata` package the Worker vendors: it has no system zone files."""
    return frozenset(resources.files("tzdata").joinpath("zones").read_text().split())


def _zone(text: str) -> str:
    zone = _unquoted(text)
    if zone not in _vendored_zones():
        raise PydanticCustomError(
            "schedule.zone_invalid",
            "`zone: {text}` is not an IANA time zone",
            {"text": zone, "mend": "write a zone such as `Europe/Berlin` or `America/New_York`"},
        )
    return zone


def _choice(code: str, item: str, allowed: tuple[str, ...]):
    def check(text: str) -> str:
        value = _unquoted(text)
        if value not in allowed:
            raise PydanticCustomError(
                code,
                "`{item}: {text}` is none of {allowed}",
                {"item": item, "text": value, "allowed": ", ".join(allowed), "mend": f"write `{item}: {allowed[0]}` or one of: {', '.join(allowed)}"},
            )
        return value

    return check


def _intervals(text: str) -> int:
    if not SECONDS.fullmatch(_unquoted(text)) or int(_unquoted(text)) < 1:
        raise PydanticCustomError(
            "schedule.intervals_invalid",
            "`intervals: {text}` is not a whole number of at least 1",
            {"text": text, "mend": "write e.g. `intervals: 24`"},
        )
    return int(_unquoted(text))


Run = Annotated[str, AfterValidator(_run)]


class _Items(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScheduleItems(_Items):
    """A schedule holds `every:` and `run:` and nothing else."""

    every: Annotated[str, AfterValidator(_duration("schedule.every_invalid", "every", "15m", False))]
    run: Run


class CalendarItems(_Items):
    cron: Annotated[str, AfterValidator(_cron)]
    zone: Annotated[str, AfterValidator(_zone)] = "UTC"
    overdue: Annotated[str, AfterValidator(_duration("schedule.overdue_invalid", "overdue", "3600", True))] | None = None
    nonexistent: Annotated[str, AfterValidator(_choice("schedule.dst_invalid", "nonexistent", NONEXISTENT))] = "shift"
    repeated: Annotated[str, AfterValidator(_choice("schedule.dst_invalid", "repeated", REPEATED))] = "first"
    run: Run


class PulseItems(_Items):
    cycle: Annotated[str, AfterValidator(_duration("schedule.cycle_invalid", "cycle", "300", True))]
    intervals: Annotated[str, AfterValidator(_intervals)] = "1"
    run: Run


ITEMS = {"schedule": ScheduleItems, "calendar": CalendarItems, "pulse": PulseItems}

_MISSING = {
    "every": ("schedule.every_invalid", "add e.g. `every: 15m`"),
    "run": ("schedule.run_invalid", "add e.g. `run: tidy_up()`"),
    "cron": ("schedule.cron_invalid", 'add e.g. `cron: "0 9 * * 1"`'),
    "cycle": ("schedule.cycle_invalid", "add e.g. `cycle: 300`"),
}


class Spec(BaseModel):
    """A valid declaration, as the build writes it for the Worker."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["schedule", "calendar", "pulse"]
    name: str
    domain: str
    module: str
    action: str
    source: str
    every_ms: int | None = None
    cron: str | None = None
    zone: str | None = None
    overdue_ms: int | None = None
    nonexistent: str | None = None
    repeated: str | None = None
    cycle_ms: int | None = None
    intervals: int | None = None

    def manifest_entry(self) -> dict:
        return self.model_dump(exclude_none=True)


def validate_declaration(
    declaration: Declaration, module: ModuleType | None, module_name: str
) -> tuple[Spec | None, list[Problem]]:
    problems = []
    items = {}
    for item in declaration.items:
        if item.key in items:
            problems.append(_problem(declaration, "schedule.item_invalid", item.line,
                                     f"`{item.key}:` is given twice", f"keep one `{item.key}:`"))
        else:
            items[item.key] = item
    model = ITEMS[declaration.kind]
    context = {"module": module, "domain": declaration.domain}
    try:
        checked = model.model_validate({key: item.value for key, item in items.items()}, context=context)
    except ValidationError as invalid:
        return None, problems + [_from_pydantic(declaration, items, error) for error in invalid.errors()]
    if problems:
        return None, problems
    fields = dict(kind=declaration.kind, name=declaration.name, domain=declaration.domain,
                  module=module_name, action=checked.run, source=f"{declaration.file}:{declaration.line}")
    if isinstance(checked, ScheduleItems):
        fields["every_ms"] = int(checked.every)
    elif isinstance(checked, CalendarItems):
        fields |= dict(cron=checked.cron, zone=checked.zone, nonexistent=checked.nonexistent,
                       repeated=checked.repeated, overdue_ms=None if checked.overdue is None else int(checked.overdue))
    else:
        cycle, intervals = int(checked.cycle), int(checked.intervals)
        if intervals * SECOND > cycle:
            line = items["intervals"].line
            return None, [_problem(declaration, "schedule.intervals_invalid", line,
                                   f"`intervals: {intervals}` is more than the cycle's {cycle // SECOND} seconds",
                                   "make `intervals` at most `cycle`")]
        fields |= dict(cycle_ms=cycle, intervals=intervals)
    return Spec(**fields), []


def check_workers_target(spec: Spec, declaration: Declaration) -> list[Problem]:
    """A Worker ticks on a minute's cron, so it cannot honour anything due more often."""
    def at(key: str) -> int:
        return next((item.line for item in declaration.items if item.key == key), declaration.line)

    def unsupported(key: str, what: str, mend: str) -> list[Problem]:
        return [_problem(declaration, "deployable.target_unsupported", at(key),
                         f"{what}; a Worker ticks once a minute", mend)]

    if spec.kind == "schedule" and spec.every_ms < MINUTE:
        return unsupported("every", f"`every:` of {spec.every_ms // 1000}s is under a minute",
                           "use `every: 1m` or more")
    if spec.kind == "pulse" and spec.cycle_ms < MINUTE * spec.intervals:
        return unsupported("cycle", f"a share of {spec.cycle_ms / spec.intervals / 1000:g}s is under a minute",
                           "make `cycle` / `intervals` at least 60 seconds")
    if spec.kind == "calendar":
        expanded, _ = croniter.expand(spec.cron, second_at_beginning=True)
        if len(expanded) == 6 and (expanded[5] == ["*"] or len(expanded[5]) > 1):
            return unsupported("cron", "its seconds field comes due more than once a minute",
                               "name one second, e.g. `0` for the first, or use 5 fields")
    return []


def _from_pydantic(declaration: Declaration, items, error) -> Problem:
    key = str(error["loc"][0]) if error["loc"] else ""
    line = items[key].line if key in items else declaration.line
    kind = error["type"]
    if kind == "extra_forbidden":
        allowed = ", ".join(f"`{name}:`" for name in ITEMS[declaration.kind].model_fields)
        return _problem(declaration, "schedule.item_invalid", line,
                        f"a {declaration.kind} holds only {allowed}, not `{key}:`", f"remove `{key}:`")
    if kind == "missing":
        code, mend = _MISSING[key]
        return _problem(declaration, code, line, f"the {declaration.kind} has no `{key}:`", mend)
    mend = (error.get("ctx") or {}).get("mend", "")
    return _problem(declaration, kind, line, error["msg"], mend)


def _problem(declaration: Declaration, code: str, line: int, message: str, mend: str) -> Problem:
    return Problem(code, message, mend, declaration.file, line, declaration.name)
