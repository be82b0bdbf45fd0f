"""Times, durations, timings and what runs did as an operator reads them: the command's wording
(scripts/tickwork_cli) and the console's, one text for both."""

import json
import re
from dataclasses import replace

from .. import times
from ..json_values import BIDI_CONTROLS
from ..model import what_a_run_did
from ..times import DAY, HOUR, MINUTE, NEVER, SECOND, to_datetime

_UNITS = ((DAY, "day"), (HOUR, "hour"), (MINUTE, "minute"), (SECOND, "second"))

# What a terminal acts on instead of showing: C0 and C1 controls (ESC starts screen clears, window
# titles, OSC 8 links; U+009B is a CSI of its own) and the bidirectional overrides that reorder a
# line. Text from the database (a run's detail, an error, a `--who`) may hold any of them.
_CONTROLS = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}]")
_JSON_RAW = re.compile(f"[\x7f-\x9f{BIDI_CONTROLS}]")  # json.dumps escapes C0 itself
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")  # what a web page reorders (it shows the others, or nothing)


def printable(text: str) -> str:
    """`text` with each control character written as its escape (`\\x1b`, `\\u202e`)."""
    return _CONTROLS.sub(_escape, text)


def unreordered(text: str) -> str:
    """`text` with each bidirectional control written as its escape (`\\u202e`), as `printable`
    writes it: a console cell reads as stored, its line breaks kept."""
    return _BIDI.sub(_escape, text)


def _escape(match: re.Match) -> str:
    return f"\\x{ord(match[0]):02x}" if ord(match[0]) < 0x100 else f"\\u{ord(match[0]):04x}"


def columns(text: str) -> int:
    """How many columns a terminal gives `text`: two for a wide character (CJK, most emoji),
    none for a combining mark or an invisible format character (a joiner)."""
    import unicodedata

    return sum(0 if unicodedata.combining(c) or unicodedata.category(c) == "Cf"
               else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def json_printable(text: str) -> str:
    """JSON text with the controls that JSON leaves raw (C1, bidirectional) escaped as `\\uXXXX`:
    they can stand only inside strings, so the JSON reads back the same."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m[0]):04x}", text)


def when(ms: int | None) -> str:
    """An instant in UTC: `2026-03-02 09:15 UTC`, with seconds only where it has some."""
    if ms is None:
        return "-"
    if ms >= NEVER:
        return "never"
    moment = to_datetime(ms)
    text = moment.strftime("%Y-%m-%d %H:%M:%S" if moment.second or moment.microsecond else "%Y-%m-%d %H:%M")
    if moment.microsecond:
        text += f".{moment.microsecond // 1000:03d}"
    return text + " UTC"


def iso(ms: int | None) -> str | None:
    """An instant for --json: ISO 8601 in UTC, or None."""
    return None if ms is None or ms >= NEVER else times.iso(ms)


def short(ms: int) -> str:
    """A duration in at most two units: `45 s`, `4 min`, `2 h 5 min`, `3 d 4 h`."""
    ms = abs(ms)
    if ms < MINUTE:
        return f"{ms // SECOND} s" if ms >= SECOND else f"{ms} ms"
    if ms < HOUR:
        return f"{ms // MINUTE} min"
    if ms < DAY:
        hours, minutes = divmod(ms // MINUTE, 60)
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    days, hours = divmod(ms // HOUR, 24)
    return f"{days} d" + (f" {hours} h" if hours else "")


def relative(ms: int | None, now: int) -> str:
    """`in 4 min`, `12 min ago`, `now`: from the command's clock."""
    if ms is None:
        return "-"
    if ms >= NEVER:
        return "never"
    delta = ms - now
    if abs(delta) < SECOND:
        return "now"
    return f"in {short(delta)}" if delta > 0 else f"{short(delta)} ago"


def span(ms: int) -> str:
    """A whole span in its largest exact unit: `15 minutes`, `1 hour`, `90 minutes`."""
    for unit, name in _UNITS:
        if ms % unit == 0:
            count = ms // unit
            return f"{count} {name}" + ("" if count == 1 else "s")
    return f"{ms} ms"


def read_form(form: str):
    """The form as kinds.forms, the one parser of forms, reads it (a kinds.forms.Form); None for a
    text it does not write, which is then shown as it stands."""
    from ..kinds.forms import parse_form  # the operator's reading: never at a cold start

    try:
        return parse_form(form)
    except ValueError:
        return None


def kind_of(form: str) -> str:
    """every, calendar, pulse or once: what the state row's form says the timing is."""
    read = read_form(form)
    return read.kind if read is not None else form.partition(" ")[0]


def timing(form: str, overdue_ms: int | None = None) -> str:
    """The timing kept in a state row's form, in words: `every 15 minutes`,
    `0 9 * * 1 in Europe/Berlin`, `pulse: 12 shares of 1 hour`, `once at 2026-01-05 09:15 UTC`."""
    read = read_form(form)
    if read is None:
        return form
    if read.jitter_ms:
        return f"{timing(replace(read, jitter_ms=None).text, overdue_ms)}, jitter {span(read.jitter_ms)}"
    grace = f", overdue after {span(overdue_ms)}" if overdue_ms else ""
    if read.kind == "every":
        text = span(read.every_ms)
        return "every " + (text.partition(" ")[2] if text.startswith("1 ") else text) + grace
    if read.kind == "calendar":
        said = [f"{read.cron} in {read.zone}"]
        # the defaults go unsaid, and so does the reading of the days every calendar now has
        said += [f"{key}: {value}" for key, value, default in (("nonexistent", read.nonexistent, "shift"),
                                                                ("repeated", read.repeated, "first"))
                 if value != default]
        return ", ".join(said) + grace
    if read.kind == "pulse":
        count = read.intervals
        return f"pulse: {count} share{'' if count == 1 else 's'} of {span(read.cycle)}" + grace
    return f"once at {when(read.at)}"


# -- what `why` says of a schedule and its runs ------------------------------------------------

SKIPS = {
    "paused": "skipped: the schedule was paused",
    "running": "skipped: the run before it still held the lease",
    "overdue": "skipped: the call was later than its `overdue:` allows; its occurrences are counted missed",
    "coalesced": "skipped: another calendar of the same action made the call for this moment",
    "expired": "skipped: its `expires` had passed, so it ended",
    "superseded": "skipped: the next due time came before this attempt, and superseded it",
    "skip_date": "skipped: the date is one of the calendar's skip dates; not counted missed",
    "undeclared": "skipped: a deploy had removed the calendar when it came due; declared again, it owed nothing",
}


def number(value) -> int | None:
    """A column's number as an int, or None: D1 hands every number back as a float."""
    return None if value is None else int(value)


def clip(text: str | None, most: int = 80) -> str:
    if not text:
        return ""
    text = " ".join(text.split())
    return text if len(text) <= most else text[: most - 1] + "…"


def call_words(run: dict) -> str:
    """A pulse's share or a calendar's moment, as its run record keeps it."""
    if run.get("n") is not None:
        return f"share {run['i']} of {run['n']}"
    if run.get("at") is not None:
        return f"at {when(int(run['at']))}" + (f" ({run['dst']})" if run.get("dst") else "")
    return ""


def ahead_of_due(run: dict) -> bool:
    """A run by hand made before the schedule was due: its record keeps the due time it left
    alone, which is no due time of this run."""
    return bool(run.get("by_hand")) and int(run["due_at"]) > int(run["tick_at"])


def events_of(run: dict) -> dict | None:
    """What a run emitted, by event, as its record keeps it."""
    return json.loads(run["events"]) if run.get("events") else None


def did(run: dict) -> str:
    """A purge's `2 records purged`, or what an action's run emitted."""
    return what_a_run_did(number(run.get("items")), events_of(run))


def overdue_words(overdue: int | None) -> str:
    """A calendar's `overdue` rule, as the tick applies it to a call it makes late."""
    if overdue is None:
        return ("none declared: a moment missed (ticks stopped, a deploy) is called however late, at the next "
                "tick, the latest one only")
    return (f"{span(overdue)}: a call the tick would make more than {span(overdue)} after its moment is skipped "
            f"instead, recorded `overdue`, and the calendar goes on to its next moment")


def rule(form: str, state: dict, overdue: int | None, starts: int | None = None) -> str:
    """How a schedule's timing places its calls, in words; `starts`, its start (`starts`)."""
    read = read_form(form)
    if read is None:
        return form
    if read.jitter_ms:
        unjittered = rule(replace(read, jitter_ms=None).text, state, overdue, starts)
        return (f"{unjittered}; each due time runs an offset under {span(read.jitter_ms)} after it, drawn from "
                f"the schedule and the due time (jitter)")
    grace = f"; a call more than {span(overdue)} late is skipped `overdue`" if overdue else ""
    if read.kind == "every":
        first_tick = int(state["first_tick"])
        # a start still to come when it was first seen is where its grid begins (kinds.every)
        origin = (f"its start ({when(int(starts))})" if starts is not None and int(starts) > first_tick
                  else f"the first tick that saw it ({when(first_tick)})")
        return f"runs fall on a grid counted in UTC from {origin}; missed ticks make one run, not a backlog" + grace
    if read.kind == "calendar":
        return (f"called at each moment of `{read.cron}` read in {read.zone}; a missed moment is called late, "
                f"at the next tick, and only the latest one is owed") + grace
    if read.kind == "pulse":
        return (f"the cycle of {span(read.cycle)} counted from the Unix epoch, in {read.intervals} shares; one "
                f"call a share, while no call runs; a missed share is not made up") + grace
    return f"called once, at {when(read.at)} or at the first tick after it"


def settings_of(state: dict, entry: dict | None) -> dict:
    """A schedule's run settings (`retry_attempts`, `retry_pause_ms`, `limit_ms`): a handed-over
    one's from its state row's timing, a declared one's from its declaration (`entry`)."""
    if state.get("timing"):
        try:
            return json.loads(state["timing"])
        except ValueError:
            return {}
    return entry or {}


def attempts_of(settings: dict) -> int | None:
    """How many attempts a due time gets in all, where the schedule declares retries."""
    more = settings.get("retry_attempts")
    return None if not more else int(more) + 1


def attempt_words(attempt: int, attempts: int | None) -> str:
    return f"attempt {attempt}" + (f" of {attempts}" if attempts else "")


def run_settings_words(settings: dict) -> str:
    """`retry`, `limit`, `starts` and `overlap` in words, as a rule's tail: '' where the schedule sets none."""
    from . import overlap_words
    from .retry_words import retry_of_settings, rule_words

    said = [f"each run creates an instance of the Workflow {settings['workflow']} and ends as it settles "
            "(`workflow`)"] if settings.get("workflow") else []
    said += [overlap_words.rule_words(settings)] if settings.get("overlap") else []
    retry = retry_of_settings(settings)
    if retry is not None:
        said.append(rule_words(retry, span))
    if settings.get("limit_ms"):
        said.append(f"a run is stopped after {span(int(settings['limit_ms']))} (`limit`)")
    if settings.get("starts_ms") is not None:
        said.append(f"no call before {when(int(settings['starts_ms']))} (`starts`)")
    return "; ".join(said)


def retry_words(state: dict, attempts: int | None, settings: dict | None = None) -> str:
    """A pending retry, as the next due time: `attempt 2 of 4 for <due> (retry 1 of 3 after 1m),
    unless the next due time, <next>, comes first and supersedes it`; the pause where `settings`
    (the schedule's) give the rule."""
    from .retry_words import pending_words, retry_of_settings

    due, retry_next = int(state["due_at"]), number(state.get("retry_next"))
    attempt, retry_due = int(state["retry_attempt"]), int(state["retry_due"])
    pause = pending_words(state["name"], attempt, retry_due, retry_of_settings(settings or {}))
    text = f"{attempt_words(attempt, attempts)} for {when(retry_due)}" + (f" ({pause})" if pause else "")
    if retry_next is not None and retry_next > due:
        return text + f", unless the next due time, {when(retry_next)}, comes first and supersedes it"
    return text + f"; the next due time, {when(retry_next)}, comes first and supersedes it"


def last_run_words(last: dict, state: dict, gaps: list[dict], attempts: int | None,
                   settings: dict | None = None) -> str:
    """The schedule's latest run or skip, with its attempt where it has retries, why it was not
    tried again where it was not, and the next attempt where one is pending."""
    from .retry_words import retry_of_settings, unretried_words

    what = what_happened(last, gaps)
    attempt = number(last.get("attempt")) or 1
    if attempts or attempt > 1:
        what = f"{attempt_words(attempt, attempts)}, {what}"
    unretried = unretried_words(last, retry_of_settings(settings or {}))
    what += f"; {unretried}" if unretried else ""
    if state.get("retry_attempt") is not None and state.get("removed_at") is None:
        what += f"; next attempt at {when(int(state['due_at']))}"
    return what


def due_reason(form: str, due: int, has_run: bool) -> str:
    """Why the next due time is the one it is."""
    read = read_form(form)
    if read is None:
        return ""
    if read.kind == "every":
        return ("the first grid time after the last tick that dealt with it" if has_run
                else "one interval after the first tick that saw it")
    if read.kind == "calendar":
        return f"the next moment of `{read.cron}` in {read.zone}"
    if read.kind == "pulse":
        from ..kinds.pulse import Pulse

        pulse = Pulse(read.cycle, read.intervals)
        return f"the start of share {pulse.share(due) % pulse.intervals} of {read.intervals}"
    return "the moment it was handed over for"


def gap_around(gaps: list[dict], moment: int) -> dict | None:
    for gap in gaps:
        if int(gap["from_tick"]) < moment <= int(gap["to_tick"]):
            return gap
    return None


def gap_words(gap: dict) -> str:
    start, end = int(gap["from_tick"]), int(gap["to_tick"])
    return f"no tick from {when(start)} to {when(end)} ({short(end - start)})"


def asked_words(run: dict) -> str:
    """Who asked for a run by hand or a backfill (`tickwork history`'s ASKED FOR, the console's):
    a run on its due time was asked for by no one."""
    if run.get("by_hand"):
        return f"by hand by {run['by_hand']}"
    return f"backfill by {run['backfill']}" if run.get("backfill") else ""


def missed_words(run: dict, name: str, verbose: bool = False) -> str:
    """`3 occurrences missed, 02-01 00:00 to 04-01 00:00; this run is for the latest`."""
    if run.get("covers") is None:
        return ""
    first, last = int(run["covers_first"]), int(run["covers_last"])
    count = f"{'more than ' if run.get('covers_more') else ''}{int(run['covers'])}"
    what = "run" if run["outcome"] != "skipped" else "skip"
    text = f"{count} occurrences missed, {when(first)} to {when(last)}; this {what} is for the latest"
    if verbose:
        text += f": `tickwork backfill {name} --from {iso(first)} --to {iso(last)}` makes the others"
    return text


def what_happened(run: dict, gaps: list[dict]) -> str:
    """A run or skip in one sentence: its outcome, what it did, its tick, trace and lateness."""
    outcome, code = run["outcome"], run.get("code")
    started, ended = number(run.get("started_at")), number(run.get("ended_at"))
    if outcome == "succeeded":
        text = "ran: succeeded" + (f" in {short(ended - started)}" if started is not None and ended else "")
        text += f", {did(run)}" if did(run) else ""
    elif outcome == "running":
        text = f"running since {when(started)}"
    elif outcome == "skipped":
        text = SKIPS.get(code or "", f"skipped: {code}")
    elif code == "action_gone":
        text = "failed: its action is no longer in the app, so it ended"
    else:
        text = f"ran and failed: {code}" + (f" ({run['kind']})" if run.get("kind") else "")
        text += f": {clip(run.get('detail'), 120)}" if run.get("detail") else ""
        text += f"; {did(run)} before it failed" if run.get("items") else ""
    text += f", by the tick at {when(int(run['tick_at']))}"
    if run.get("trace"):
        text += f", in trace {run['trace']}"
    if run.get("by_hand"):
        text += f", a run asked for by hand by {run['by_hand']}"
    if run.get("backfill"):
        text += f", a backfill asked for by {run['backfill']}"
    if run.get("covers") is not None:
        text += f"; {missed_words(run, run['schedule'], verbose=True)}"
    late = int(run["tick_at"]) - int(run["due_at"])
    gap = gap_around(gaps, int(run["due_at"]))
    if (number(run.get("attempt")) or 1) > 1 or run.get("backfill"):
        pass  # a retry is made after its pause, a backfill when asked for: neither is late
    elif gap is not None and late > 0:
        text += f"; late by {short(late)}: ticks had stopped ({gap_words(gap)})"
    elif late >= 2 * MINUTE:
        text += f"; late by {short(late)}"
    return text


def occurrence_words(call) -> str:
    """One occurrence a backfill makes: its moment, a pulse's share, a calendar's DST note."""
    return (when(call.at) + (f" (share {call.i} of {call.n})" if call.n is not None else "")
            + (f" ({call.dst})" if call.dst else ""))


def backfill_words(plan) -> str:
    """`statement: 2 occurrences from <from> to <to> without a succeeded run (0 made already)`."""
    todo = len(plan.todo)
    counted = f"{todo}{' or more' if plan.more else ''} occurrence{'' if todo == 1 else 's'}"
    left_out = f"; left out: {', '.join(plan.skipped)}" if getattr(plan, "skipped", ()) else ""
    return (f"{plan.name}: {counted} from {when(plan.start)} to {when(plan.end)} without a succeeded run"
            f" ({plan.made_already} made already){left_out}")


def backfill_asked_words(backfill_id: str) -> str:
    return f"asked for backfill {backfill_id}: the next ticks make them, oldest first, a few a tick"


def backfill_state_words(state: str) -> str:
    """A backfill's state as an operator reads it (`tickwork backfills`, the console): one that
    ended for want of its schedule says so."""
    from ..store.backfills import GONE_STATE

    return f"{GONE_STATE}: its schedule is gone" if state == GONE_STATE else state


def backfill_cancelled_words(row: dict) -> str:
    """A pending backfill cancelled, from its row as the cancel left it."""
    made = int(row["made"])
    return (f"cancelled backfill {row['id']} of {row['schedule']}: {made} occurrence{'' if made == 1 else 's'} "
            f"made stay made, no other is made")
