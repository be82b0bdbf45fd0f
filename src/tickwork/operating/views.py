"""What an operator reads of a schedule, a run and a delivery, worked out once from the rows the
stores read (operator_store, console/console_store) and what the declaration says: the command
(scripts/tickwork_cli/verbs.py) renders these views to text and JSON, the console (console/pages.py)
to HTML, so the two never state one row two ways.

A declared schedule's state row keeps no `timing` (the seed writes none): its `overdue` and its
run settings are its declaration's, from the build's manifest (the command) or `app.schedules`
(the console), which `Entry` carries to the view.
"""

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..kinds.forms import form_of, timing_of
from ..store.leases import holds_lease
from ..times import NEVER
from . import words
from .end_words import ended_words
from .words import number

Row = Mapping[str, Any]
T = TypeVar("T")

# A schedule's state, one vocabulary for the command's `--state` and the console's: live (neither
# paused nor ended), paused, ended (removed by a deploy, or ended: a one-off done, an item
# cancelled); and the filters across those: running (a run holds its lease), failing (the one
# definition, schedule_store.IS_FAILING), declared, handed-over. The console offers all too.
LIFE = ("live", "paused", "ended")  # what one row is: schedule_view's `state`
STATES = (*LIFE, "running", "failing", "declared", "handed-over")
# The command's words for two of them before the vocabularies were one, kept so every documented
# `--state` still works.
ALIASES = {"active": "live", "removed": "ended"}
# The words operator_store.SELECT_SCHEDULES_PAGE's CASE is written with (its SQL is kept byte for byte).
_PAGE_WORDS = {"live": "active", "ended": "removed"}


def state_named(word: str | None) -> str | None:
    """The state a word names: itself, or the name an old alias stands for."""
    return ALIASES.get(word, word) if word is not None else None


def page_word(state: str | None) -> str | None:
    """A state as the command's page of schedules (operator_store.SELECT_SCHEDULES_PAGE) is asked for it."""
    named = state_named(state)
    return _PAGE_WORDS.get(named, named) if named is not None else None


def first(rows: Sequence[T]) -> T | None:
    return rows[0] if rows else None


def page(rows: list[T], limit: int, cursor: Callable[[T], Any] = lambda row: row) -> tuple[list[T], Any]:
    """A page of the `limit + 1` rows read (the one more says a next page has some), and the
    cursor of the page after it: `cursor` of its last row, None on the last page."""
    return rows[:limit], cursor(rows[limit - 1]) if len(rows) > limit else None


def zone_of(form: str | None) -> str | None:
    """A calendar's zone, from the state row's form; None for every other kind, and for UTC."""
    read = words.read_form(form) if form else None
    if read is None or read.kind != "calendar":
        return None
    return None if read.zone in (None, "", "UTC", "Etc/UTC") else read.zone


# -- what the declaration says ----------------------------------------------------------------

@dataclass(frozen=True)
class Entry:
    """A declared schedule as its declaration states it: where (`file:line`), its `overdue`, and
    its run settings (`retry_attempts`, `retry_pause_ms`, `limit_ms`)."""

    source: str | None
    overdue_ms: int | None
    settings: Mapping[str, Any]


def entry_of_manifest(entry: Mapping[str, Any] | None) -> Entry | None:
    """A manifest entry (tickwork_cli.manifest.declared) as the views read it."""
    if entry is None:
        return None
    return Entry(entry.get("source"), number(entry.get("overdue_ms")), entry)


def entry_of_schedule(schedule: Any) -> Entry | None:
    """One of `app.schedules` as the views read it."""
    if schedule is None:
        return None
    retry = schedule.retry
    settings = {**(retry.settings() if retry else {}), "limit_ms": schedule.limit,
                "starts_ms": getattr(schedule, "starts", None), "overlap": getattr(schedule, "overlap", None),
                "skip": dict(getattr(schedule.timing, "skip", ())) or None,
                "workflow": getattr(schedule, "workflow", None)}
    return Entry(schedule.source, getattr(schedule.timing, "overdue", None), settings)


def handed_over_timing(row: Row) -> dict[str, Any] | None:
    """A handed-over schedule's timing as its state row keeps it (None for a declared one's, or
    one that cannot be read)."""
    try:
        found = json.loads(row["timing"]) if row.get("timing") else None
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


def skip_of(row: Row, entry: Entry | None) -> dict[str, str] | None:
    """A calendar's skip dates (date to the list it came from): a handed-over one's from its row,
    a declared one's from its entry."""
    if row.get("timing"):
        found = (handed_over_timing(row) or {}).get("skip")
    else:
        found = entry.settings.get("skip") if entry is not None else None
    return dict(found) if isinstance(found, Mapping) and found else None


def skip_words(skip: Mapping[str, str] | None) -> str:
    """`, not on 3 skip dates (holidays, 1 of its own)`, or nothing where it skips none."""
    if not skip:
        return ""
    own = sum(1 for source in skip.values() if not source)
    named = sorted({source for source in skip.values() if source}) + ([f"{own} of its own"] if own else [])
    return f", not on {len(skip)} skip date{'' if len(skip) == 1 else 's'} ({', '.join(named)})"


def called_next(form: str, due: int, skip: Mapping[str, str] | None) -> tuple[int, tuple[str, ...]]:
    """A calendar's next due time on no skip date from the kept `due`, and what each skip date
    passed over says; `due` itself where it skips none."""
    if not skip or due >= NEVER:
        return due, ()
    read = words.read_form(form)
    if read is None or read.kind != "calendar":
        return due, ()
    timing = timing_of(read.entry() | {"skip": dict(skip)})
    called, passed = timing.called_from(due)
    return called, tuple(passed)


def overdue_of(row: Row, entry: Entry | None) -> int | None:
    """A calendar's `overdue` (ms): a handed-over one's from its row, a declared one's from its entry."""
    if row.get("timing"):
        return number((handed_over_timing(row) or {}).get("overdue_ms"))
    return entry.overdue_ms if entry is not None else None


# -- a schedule ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class LeaseView:
    """The run going on under a schedule's lease: `lapsed` once its time is past, when the next
    tick records it failed `lease_expired`."""

    run: str
    started: int | None
    until: int | None
    lapsed: bool


@dataclass(frozen=True)
class LastRunView:
    """A schedule's latest run or skip, as the page of schedules reads it beside the row."""

    run: str
    outcome: str
    code: str | None
    due_at: int | None
    tick_at: int | None
    by_hand: str | None


@dataclass(frozen=True)
class ScheduleView:
    name: str
    action: str | None  # what a handed-over one calls; None for a declared one
    form: str
    kind: str  # every, calendar, pulse or once
    zone: str | None  # a calendar's, where not UTC
    overdue_ms: int | None
    timing: str  # the timing in words
    settings: Mapping[str, Any]
    attempts: int | None  # a due time's attempts in all, where it retries
    due_at: int
    next_due: int | None  # None where ended or nothing is left to call; past a calendar's skip dates
    skipped: tuple[str, ...]  # what the skip dates from due_at to next_due say: `2026-12-25 skipped: holidays`
    state: str  # live, paused or ended
    paused: bool
    removed_at: int | None
    ended: str | None  # why it ended, where it did (rather than a deploy removing it)
    lease: LeaseView | None
    run_requested_at: int | None
    run_requested_by: str | None
    retry_pending: bool
    last: LastRunView | None
    end: str | None = None  # why it ended, in words: `replaced by <id>`, `made its 5 calls`, ...

    @property
    def handed_over(self) -> bool:
        return self.action is not None

    @property
    def skips_due_times(self) -> bool:
        """Paused, with due times still to come: the tick that finds it due skips it (recorded
        `paused`). An ended one is paused to no effect."""
        return self.paused and self.next_due is not None

    def rule(self, row: Row) -> str:
        """How its timing places its calls, and its `retry` and `limit`, in words."""
        said = f"{self.timing}: {words.rule(self.form, dict(row), self.overdue_ms, self.settings.get('starts_ms'))}"
        run_settings = words.run_settings_words(dict(self.settings))
        return said + (f"; {run_settings}" if run_settings else "")


def lease_of(row: Row, now: int, started: Any = None) -> LeaseView | None:
    """The lease a row's run holds while its record is running (store.leases.holds_lease, the
    one definition); `started` where the row read has no `lease_started` (the run read beside it)."""
    if not holds_lease(dict(row)):
        return None
    until = number(row.get("lease_until"))
    started = row.get("lease_started") if started is None else started
    return LeaseView(row["lease_run"], number(started), until, until is not None and until <= now)


def _last_of(row: Row) -> LastRunView | None:
    if not row.get("last_run"):
        return None
    return LastRunView(row["last_run"], row["last_outcome"], row.get("last_code"), number(row.get("last_due")),
                       number(row.get("last_tick_at")), row.get("last_by_hand"))


def schedule_view(row: Row, now: int, entry: Entry | None = None, lease_started: Any = None) -> ScheduleView:
    """The view of a schedule's state row at `now`; `entry`, its declaration where it is declared."""
    form = form_of(row)
    overdue = overdue_of(row, entry)
    settings = words.settings_of(dict(row), dict(entry.settings) if entry is not None else None)
    removed, due = number(row.get("removed_at")), int(row["due_at"])
    skip = skip_of(row, entry)
    called, skipped = called_next(form, due, skip) if removed is None else (due, ())
    return ScheduleView(
        name=row["name"], action=row.get("action"), form=form, kind=words.kind_of(form), zone=zone_of(form),
        overdue_ms=overdue, timing=words.timing(form, overdue) + skip_words(skip), settings=settings,
        attempts=words.attempts_of(settings), due_at=due,
        next_due=None if removed is not None or called >= NEVER else called, skipped=skipped,
        state="ended" if removed is not None else "paused" if row["paused"] else "live",
        paused=bool(row["paused"]), removed_at=removed, ended=row.get("ended"),
        lease=lease_of(row, now, lease_started),
        run_requested_at=number(row.get("run_requested_at")), run_requested_by=row.get("run_requested_by"),
        retry_pending=row.get("retry_attempt") is not None and removed is None, last=_last_of(row),
        end=ended_words(row),
    )


# -- a run and a delivery -----------------------------------------------------------------------

@dataclass(frozen=True)
class RunView:
    """A run or skip as its record keeps it, with what an operator reads off it."""

    id: str
    due_at: int | None  # None for a run by hand made ahead of its schedule's due time
    tick_at: int
    started_at: int | None
    ended_at: int | None
    outcome: str
    code: str | None
    attempt: int

    @property
    def took_ms(self) -> int | None:
        return self.ended_at - self.started_at if self.started_at is not None and self.ended_at is not None else None


def run_view(run: Row) -> RunView:
    return RunView(run["id"], None if words.ahead_of_due(dict(run)) else int(run["due_at"]), int(run["tick_at"]),
                   number(run.get("started_at")), number(run.get("ended_at")), run["outcome"], run.get("code"),
                   number(run.get("attempt")) or 1)


# The states each delivery verb starts from (operator_store.FROM_STATES, whose statements they are).
def delivery_verbs(state: str) -> list[str]:
    """What an operator may do to a delivery in `state`: retry, dismiss, cancel."""
    from ..store.operator import FROM_STATES

    return [verb for verb, states in FROM_STATES.items() if state in states]


@dataclass(frozen=True)
class DeliveryView:
    id: str
    state: str
    event_name: str
    queue: str
    sends: int
    next_send: int | None
    last_error: str | None
    consumer_tries: int | None  # where the app's own consumer failed it: the tries of its last send
    verbs: list[str]


def delivery_view(row: Row, tries: Mapping[str, int] | None = None) -> DeliveryView:
    # Only the app's own consumer fails a delivery, once the queue's tries of its last send are spent.
    failed_after = (tries or {}).get(row["queue"]) if row["state"] == "failed" else None
    return DeliveryView(row["id"], row["state"], row["event_name"], row["queue"], int(row["attempts"]),
                        number(row.get("next_attempt_at")), row.get("last_error"), failed_after,
                        delivery_verbs(row["state"]))
