"""The one reader and writer of what a schedule's timing is: the manifest entry the build writes,
and the form a state row keeps.

A form is persisted and fingerprinted (`Declared.fingerprint` hashes `name\\tform`): a changed
form rebases every schedule at the next deploy. So a form is written here only, and read here
only, and `parse_form` takes back exactly the texts written here (tests/test_schedule_forms_round_trip.py).

    every 900000
    calendar 0 9 * * 1 | Europe/Berlin | nonexistent=shift repeated=first
    calendar 0 9 1 * 1 | UTC | nonexistent=skip repeated=both days=vixie
    pulse 3600000/12
    once 1767604500000
"""

from __future__ import annotations

import importlib
import json
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Mapping

from ..app import _known

if TYPE_CHECKING:
    from ..model import Retry
    from . import Timing

Entry = Mapping[str, Any]  # a manifest entry, or a handed-over schedule's `timing` JSON


@dataclass(frozen=True)
class Kind:
    """A kind of schedule, by each name it goes by."""

    name: str  # the manifest's `kind`, as the build and a hand-over write it
    prefix: str  # the first word of its form
    home: str  # the module of its Timing, imported at first use
    timing_class: str
    keys: tuple[str, ...]  # what its Timing is made of, in the entry

    def timing(self, entry: Entry) -> Timing:
        """The Timing an entry of this kind declares."""
        made: Timing
        of = getattr(importlib.import_module(self.home, __package__), self.timing_class)
        if self.prefix == "calendar":
            from .calendar import cron_calendar  # only an app with calendars needs them

            from .skip_dates import dates_of

            made = of(cron_calendar(*(entry[key] for key in self.keys[:4])), entry.get("overdue_ms"), dates_of(entry))
        elif self.prefix in GRACED:  # `overdue_ms` absent (an entry from before) reads as no grace
            made = of(*(entry[key] for key in self.keys), overdue=entry.get("overdue_ms"))
        else:
            made = of(*(entry[key] for key in self.keys))
        return made


KINDS = {kind.name: kind for kind in (
    Kind("schedule", "every", ".every", "Every", ("every_ms",)),
    Kind("purge", "every", ".every", "Every", ("every_ms",)),  # tickwork's own action on an `every:` grid
    Kind("calendar", "calendar", ".calendar", "Calendar", ("cron", "zone", "nonexistent", "repeated", "overdue_ms")),
    Kind("pulse", "pulse", ".pulse", "Pulse", ("cycle_ms", "intervals")),
    Kind("once", "once", ".once", "Once", ("at_ms",)),
)}
# The manifest's names are checked at a Worker's cold start, where this module is not imported:
# app.KINDS, whose names these are (a test says so).

PREFIXES = ("every", "calendar", "pulse", "once")
GRACED = ("every", "pulse")  # the kinds besides calendars that take `overdue:`

# Ends the form of a calendar whose days tickwork read otherwise before it followed Vixie cron's
# rule, so that its state row, stored under the old reading, is rebased.
VIXIE_DAYS = " days=vixie"


def timing_of(entry: Entry) -> Timing:
    """The timing a manifest entry, or a handed-over schedule's JSON, declares."""
    return KINDS[_known(entry)].timing(entry)


def retry_of_entry(entry: Entry) -> Retry | None:
    """A declared or handed-over entry's retries, where it declares them."""
    from ..model import Retry

    if not entry.get("retry_attempts"):
        return None
    return Retry(entry["retry_attempts"], entry["retry_pause_ms"], entry.get("retry_ceiling_ms"),
                 entry.get("retry_jitter_ms") or 0, tuple(entry.get("retry_except") or ()))


# A row written before migration 0002 has no form: it is an `every:` schedule of its every_ms.
# The statements that read the form in SQL write the same fallback: schedule_store.STORED_FORM
# and operator_store.SCHEDULE_KIND (kept beside the statements that use them, in the stores).
def form_of(row: Entry) -> str:
    """A state row's form."""
    return row.get("form") or every_form(int(row["every_ms"]))


def timing_of_row(row: Entry) -> Timing:
    """A schedule's timing from its state row: a handed-over one's from its JSON, a declared
    one's from its form (which keeps no `overdue:` and no `skip:`: the declaration has them)."""
    if row.get("timing"):
        return timing_of(json.loads(row["timing"]))
    return parse_form(form_of(row)).timing()


# A schedule with `jitter:` keeps it at the end of its form, so that adding, changing or dropping
# it rebases the row and writes its jitter; a form without it reads as it always did.
JITTER = " jitter="


def jittered_form(form: str, jitter: int | None) -> str:
    """A timing's form with the schedule's jitter (ms), where it has one."""
    return f"{form}{JITTER}{jitter}" if jitter else form


def timing_part(form: str) -> str:
    """A kept form without its jitter: what its timing's form was."""
    return form.partition(JITTER)[0]


def every_form(every_ms: int) -> str:
    return f"every {every_ms}"


def calendar_form(cron: str, zone: str, nonexistent: str, repeated: str, days_vixie: bool) -> str:
    form = f"calendar {cron} | {zone} | nonexistent={nonexistent} repeated={repeated}"
    return form + VIXIE_DAYS if days_vixie else form


def pulse_form(cycle: int, intervals: int) -> str:
    return f"pulse {cycle}/{intervals}"


def once_form(at: int) -> str:
    return f"once {at}"


@dataclass(frozen=True)
class Form:
    """A form, read: `kind` is its first word (every, calendar, pulse or once), and the fields of
    that kind are set, the others None."""

    kind: str
    every_ms: int | None = None
    cron: str | None = None
    zone: str | None = None
    nonexistent: str | None = None
    repeated: str | None = None
    days_vixie: bool = False  # the form says its days are read by Vixie cron's rule
    cycle: int | None = None  # ms
    intervals: int | None = None
    at: int | None = None  # epoch ms
    jitter_ms: int | None = None

    @property
    def text(self) -> str:
        """The form as a state row keeps it."""
        return jittered_form(self._timing_text, self.jitter_ms)

    @property
    def _timing_text(self) -> str:
        if self.kind == "every" and self.every_ms is not None:
            return every_form(self.every_ms)
        if self.kind == "calendar" and self.cron is not None and self.zone is not None:
            return calendar_form(self.cron, self.zone, str(self.nonexistent), str(self.repeated), self.days_vixie)
        if self.kind == "pulse" and self.cycle is not None and self.intervals is not None:
            return pulse_form(self.cycle, self.intervals)
        if self.kind == "once" and self.at is not None:
            return once_form(self.at)
        raise ValueError(f"a form of kind {self.kind!r} lacks its fields: {self!r}")

    def timing(self) -> Timing:
        """The timing the form is of. A calendar's form keeps no `overdue:`; one kept from before
        Vixie's reading of the days lacks the suffix its timing's form now has, which is how the
        tick sees the change (Calendar.rebased)."""
        return timing_of(self.entry())

    def entry(self) -> dict[str, Any]:
        """The entry of the timing the form is of, as a manifest writes it."""
        if self.kind == "calendar":
            return {"kind": "calendar", "cron": self.cron, "zone": self.zone, "nonexistent": self.nonexistent,
                    "repeated": self.repeated}
        if self.kind == "pulse":
            return {"kind": "pulse", "cycle_ms": self.cycle, "intervals": self.intervals}
        if self.kind == "once":
            return {"kind": "once", "at_ms": self.at}
        return {"kind": "schedule", "every_ms": self.every_ms}


_RULES = re.compile(r"nonexistent=(\S+) repeated=(\S+)(" + re.escape(VIXIE_DAYS) + ")?")


def parse_form(text: str) -> Form:
    """The form `text` is; ValueError for any text `Form.text` does not write back byte for byte."""
    timing_text, jittered, jitter = text.partition(JITTER)
    form = _timing_form(timing_text)
    if jittered:
        form = replace(form, jitter_ms=int(jitter))
    if form.text != text:
        raise ValueError(f"{text!r} is not a form as tickwork writes it")
    return form


def _timing_form(text: str) -> Form:
    kind, _, rest = text.partition(" ")
    if kind == "every":
        form = Form(kind, every_ms=int(rest))
    elif kind == "pulse":
        cycle, _, intervals = rest.partition("/")
        form = Form(kind, cycle=int(cycle), intervals=int(intervals))
    elif kind == "once":
        form = Form(kind, at=int(rest))
    elif kind == "calendar":
        parts = rest.rsplit(" | ", 2)  # a cron expression holds no `|`, a zone no space
        rules = _RULES.fullmatch(parts[-1])
        if len(parts) != 3 or rules is None:
            raise ValueError(f"unknown form {text!r}")
        form = Form(kind, cron=parts[0], zone=parts[1], nonexistent=rules.group(1), repeated=rules.group(2),
                    days_vixie=rules.group(3) is not None)
    else:
        raise ValueError(f"unknown form {text!r}")
    if form.text != text:
        raise ValueError(f"{text!r} is not a form as tickwork writes it")
    return form
