"""Cron expressions as the docs document them (how-to/declare-schedules.md), and nothing else.

5 fields (minute, hour, day of month, month, day of week) or 6 with seconds first, separated by
spaces or tabs. Each field is a comma list of `*`, `N` or `N-M`, where `*` and `N-M` may take a
step `/S`. Months may be named JAN-DEC and days SUN-SAT, in any case; day of week 7 is Sunday.
Nothing of croniter's beyond that: no `R` (a random minute, drawn anew at each parse), `H`,
`L`, `W`, `#`, `?`, `N/S` or `@daily`. The two day fields combine as in Vixie cron: a day matches
both where either field starts with `*` (`*`, `*/2`), either where neither does.

Plain Python, for the build and the Worker alike: both read an expression only through here.
"""

import re
from dataclasses import dataclass

from ..errors import Invalid

CODE = "schedule.cron_invalid"
MEND = 'write 5 fields, or 6 with seconds first, each a list of *, N, N-M, */S or N-M/S, e.g. "0 9 * * 1"'

_ITEM = re.compile(r"(\*|[0-9A-Za-z]+)(?:-([0-9A-Za-z]+))?(?:/([0-9A-Za-z]+))?")
_NUMBER = re.compile(r"[0-9]{1,2}")  # every bound has two digits at most: int() never sees more
_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")


def shown(text: str) -> str:
    """A value as a message quotes it: a long one cut short."""
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


class CronInvalid(Invalid):
    """An expression this module does not accept (a ValueError); `code` and `mend` are the build's."""

    def __init__(self, message: str, mend: str = MEND):
        super().__init__(CODE, message, mend)


@dataclass(frozen=True)
class _Field:
    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()  # names[i] stands for low + i
    cycle: int | None = None  # values taken modulo this: day of week 7 is 0, Sunday

    def value(self, token: str) -> int:
        if token.upper() in self.names:
            return self.low + self.names.index(token.upper())
        if _NUMBER.fullmatch(token) and self.low <= int(token) <= self.high:
            return int(token)
        named = f", or {self.names[0]}-{self.names[-1]}" if self.names else ""
        raise CronInvalid(
            f"the {self.name} field's `{shown(token)}` is not a number from {self.low} to {self.high}{named}"
        )

    def values(self, text: str) -> frozenset[int]:
        found: set[int] = set()
        for item in text.split(","):
            match = _ITEM.fullmatch(item)
            said = f"the {self.name} field's `{shown(item)}`"
            if match is None:
                raise CronInvalid(f"{said} is not *, N or N-M, with an optional /S")
            start, end, step = match.groups()
            if start == "*" and end is not None:
                raise CronInvalid(f"{said} is not a range: `*` is one already")
            if start != "*" and end is None and step is not None:
                raise CronInvalid(f"{said} steps from a single value",
                                  f"write `{start}-{self.high}/{step}` to step from {start} to the end")
            low, high = (self.low, self.high) if start == "*" else (self.value(start), self.value(end or start))
            if low > high:
                raise CronInvalid(f"{said} runs backwards",
                                  f"write it low to high, or as two ranges: `{start}-{self.high},{self.low}-{end}`")
            if step is not None and not (_NUMBER.fullmatch(step) and 1 <= int(step) <= self.high):
                raise CronInvalid(f"the {self.name} field's step `{shown(step)}` is not a number from 1 to {self.high}")
            found.update(range(low, high + 1, int(step or 1)))
        return frozenset(value % self.cycle for value in found) if self.cycle else frozenset(found)


_SECOND = _Field("second", 0, 59)
_STANDARD = (
    _Field("minute", 0, 59),
    _Field("hour", 0, 23),
    _Field("day-of-month", 1, 31),
    _Field("month", 1, 12, _MONTHS),
    _Field("day-of-week", 0, 7, _DAYS, cycle=7),
)


def parse(expression: str) -> tuple[frozenset[int], ...]:
    """The values each field allows, in the order written (seconds first where there are 6).
    Raises CronInvalid, naming the field and the token, for anything else."""
    written = _written(expression)
    return tuple(field.values(text) for field, text in zip(_fields(len(written)), written, strict=True))


def _written(expression: str) -> list[str]:
    if not isinstance(expression, str):
        raise CronInvalid(f"a cron expression is a string, not {type(expression).__name__}")
    written = re.split(r"[ \t]+", expression.strip(" \t")) if expression.strip(" \t") else []
    if len(written) not in (5, 6):
        raise CronInvalid(f"a cron expression has 5 fields, or 6 with seconds first; this has {len(written)}")
    return written


def _fields(count: int) -> tuple[_Field, ...]:
    return (_SECOND, *_STANDARD) if count == 6 else _STANDARD


def days_either(expression: str) -> bool:
    """Whether a day matching either day field will do (Vixie cron's rule: neither field starts
    with `*`), rather than one matching both."""
    written = _written(expression)
    return not (written[-3].startswith("*") or written[-1].startswith("*"))


def days_read_otherwise(expression: str) -> bool:
    """Whether tickwork before Vixie's rule named other days: it combined the day fields as
    croniter does, both where either names every day, either where neither does."""
    values = parse(expression)
    every = [values[i] == field.values("*") for i, field in ((-3, _STANDARD[2]), (-1, _STANDARD[4]))]
    return not all(every) and (not any(every)) != days_either(expression)


def canonical(expression: str) -> str:
    """The expression with every field a plain list of numbers (or `*` for all of them), so
    croniter, which reads `5-5` as every minute, is never handed anything it may misread. Read
    with croniter's `day_or=days_either(expression)`, it names the days cron runs on: where
    either day field will do and one names every day, every day is `*` in both."""
    values = parse(expression)
    shown = [
        "*" if found == field.values("*") else ",".join(map(str, sorted(found)))
        for field, found in zip(_fields(len(values)), values, strict=True)
    ]
    if days_either(expression) and "*" in (shown[-3], shown[-1]):
        shown[-3] = shown[-1] = "*"  # croniter would read a `*` beside a list as that list alone
    return " ".join(shown)
