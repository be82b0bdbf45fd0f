"""Validates schedule declarations with pydantic and turns them into what the Worker loads."""

import inspect
import re
from types import ModuleType
from typing import Annotated

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    ValidationError,
    ValidationInfo,
)
from pydantic_core import PydanticCustomError

from tickwork.times import MINUTE, UNITS

from .declaration import Declaration
from .problems import Problem

EVERY = re.compile(r"(\d+)([smhd])")
CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*\)")


def _every(text: str) -> int:
    match = EVERY.fullmatch(text)
    if not match or int(match.group(1)) == 0:
        raise PydanticCustomError(
            "schedule.every_invalid",
            "`every: {text}` is not a whole number above zero of s, m, h or d",
            {"text": text, "mend": "write a whole number and one unit, e.g. `every: 15m`"},
        )
    return int(match.group(1)) * UNITS[match.group(2)]


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
            "action `{name}` takes parameters; a schedule calls it with none",
            {"name": name, "mend": f"make it `async def {name}():` and read what it needs itself"},
        )
    return name


class ScheduleItems(BaseModel):
    """A schedule holds `every:` and `run:` and nothing else."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    every: Annotated[str, AfterValidator(_every)]
    run: Annotated[str, AfterValidator(_run)]


class ScheduleSpec(BaseModel):
    """A valid schedule, as the build writes it for the Worker."""

    model_config = ConfigDict(frozen=True)

    name: str
    domain: str
    module: str
    action: str
    every_ms: int
    source: str


_MISSING_CODES = {"every": "schedule.every_invalid", "run": "schedule.run_invalid"}
_MISSING_MENDS = {"every": "add e.g. `every: 15m`", "run": "add e.g. `run: tidy_up()`"}


def validate_schedule(
    declaration: Declaration, module: ModuleType | None, module_name: str
) -> tuple[ScheduleSpec | None, list[Problem]]:
    problems = []
    items = {}
    for item in declaration.items:
        if item.key in items:
            problems.append(_problem(declaration, "schedule.item_invalid", item.line,
                                     f"`{item.key}:` is given twice", f"keep one `{item.key}:`"))
        else:
            items[item.key] = item
    context = {"module": module, "domain": declaration.domain}
    try:
        checked = ScheduleItems.model_validate(
            {key: item.value for key, item in items.items()}, context=context
        )
    except ValidationError as invalid:
        for error in invalid.errors():
            problems.append(_from_pydantic(declaration, items, error))
        return None, problems
    if problems:
        return None, problems
    spec = ScheduleSpec(
        name=declaration.name,
        domain=declaration.domain,
        module=module_name,
        action=checked.run,
        every_ms=int(checked.every),
        source=f"{declaration.file}:{declaration.line}",
    )
    return spec, []


def check_workers_target(spec: ScheduleSpec, declaration: Declaration) -> list[Problem]:
    """A Worker ticks on a minute's cron, so it cannot honour an interval under a minute."""
    if spec.every_ms >= MINUTE:
        return []
    line = next((item.line for item in declaration.items if item.key == "every"), declaration.line)
    return [
        _problem(
            declaration,
            "deployable.target_unsupported",
            line,
            f"`every:` of {spec.every_ms // 1000}s is under a minute; a Worker ticks once a minute",
            "use `every: 1m` or more",
        )
    ]


def _from_pydantic(declaration: Declaration, items, error) -> Problem:
    key = str(error["loc"][0]) if error["loc"] else ""
    line = items[key].line if key in items else declaration.line
    kind = error["type"]
    if kind == "extra_forbidden":
        return _problem(declaration, "schedule.item_invalid", line,
                        f"a schedule holds only `every:` and `run:`, not `{key}:`",
                        f"remove `{key}:`")
    if kind == "missing":
        return _problem(declaration, _MISSING_CODES[key], line,
                        f"the schedule has no `{key}:`", _MISSING_MENDS[key])
    mend = (error.get("ctx") or {}).get("mend", "")
    return _problem(declaration, kind, line, error["msg"], mend)


def _problem(declaration: Declaration, code: str, line: int, message: str, mend: str) -> Problem:
    return Problem(code, message, mend, declaration.file, line, declaration.name)
