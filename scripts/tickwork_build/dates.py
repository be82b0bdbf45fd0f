"""Named lists of skip dates, shared by the calendars that name them (`skip: holidays`):

    [tool.tickwork.dates]
    holidays = [2026-12-25, 2027-01-01]        # TOML dates, or "2026-12-25" as text

They are declared once for the whole app, in pyproject.toml beside the app's other settings, not
in a domain: a country's holidays are shared by calendars of every domain. Each date is checked
as a calendar's own are (kinds.rules), at the list's line; a list with a problem is left out, so
a calendar naming it is not told it does not exist as well.
"""

from collections.abc import Mapping

from tickwork.errors import ScheduleError
from tickwork.kinds.rules import MOST_SKIP_DATES, skip_date_checked, skip_dates_within_bound

from .problems import Problem
from .settings import line_of

TABLE = ("tool", "tickwork", "dates")
NAMES = r"[A-Za-z_][A-Za-z0-9_]*"


def named_lists(written: object, pyproject: str) -> tuple[dict[str, tuple[str, ...]], list[Problem]]:
    """The lists `[tool.tickwork.dates]` names (`written`, as TOML read it), each sorted, and the
    problems of those that are not lists of dates; `pyproject` is the file's text, for lines."""
    import re

    if written is None:
        return {}, []
    if not isinstance(written, Mapping):
        return {}, [Problem("settings.dates_invalid", f"`dates = {written!r}` is not a table of lists of dates",
                            'write `[tool.tickwork.dates]` then e.g. `holidays = ["2026-12-25"]`', "pyproject.toml",
                            line_of(pyproject, TABLE[:2], "dates"))]
    lists, problems = {}, []
    for name, dates in written.items():
        said = f"`dates.{name}`"
        try:
            if not re.fullmatch(NAMES, name):
                raise ScheduleError("settings.dates_invalid", f"{said}: a list's name is a word of letters, digits "
                                    "and `_`", "name it e.g. `holidays`")
            if not isinstance(dates, list):
                raise ScheduleError("settings.dates_invalid", f"{said} is not a list of dates",
                                    f'write e.g. `{name} = ["2026-12-25", "2027-01-01"]`')
            skip_dates_within_bound(len(dates), said)
            lists[name] = tuple(sorted({skip_date_checked(day, said) for day in dates}))
        except ScheduleError as error:
            lists[name] = ()  # still a list's name: a calendar naming it is not told it does not exist
            problems.append(Problem(error.code, error.message, error.mend, "pyproject.toml",
                                    line_of(pyproject, TABLE, name)))
    return lists, problems


__all__ = ["MOST_SKIP_DATES", "named_lists"]
