"""Times, durations and timings as an operator reads them."""

import re
import unicodedata
from datetime import datetime, timezone

from tickwork.json_values import BIDI_CONTROLS
from tickwork.times import DAY, HOUR, MINUTE, NEVER, SECOND

_UNITS = ((DAY, "day"), (HOUR, "hour"), (MINUTE, "minute"), (SECOND, "second"))

# What a terminal acts on instead of showing: C0 and C1 controls (ESC starts screen clears, window
# titles, OSC 8 links; U+009B is a CSI of its own) and the bidirectional overrides that reorder a
# line. Text from the database (a run's detail, an error, a `--who`) may hold any of them.
_CONTROLS = re.compile(f"[\x00-\x1f\x7f-\x9f{BIDI_CONTROLS}]")
_JSON_RAW = re.compile(f"[\x7f-\x9f{BIDI_CONTROLS}]")  # json.dumps escapes C0 itself


def printable(text: str) -> str:
    """`text` with each control character written as its escape (`\\x1b`, `\\u202e`)."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}", text)


def columns(text: str) -> int:
    """How many columns a terminal gives `text`: two for a wide character (CJK, most emoji),
    none for a combining mark or an invisible format character (a joiner)."""
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
    moment = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    text = moment.strftime("%Y-%m-%d %H:%M:%S" if moment.second or moment.microsecond else "%Y-%m-%d %H:%M")
    if moment.microsecond:
        text += f".{moment.microsecond // 1000:03d}"
    return text + " UTC"


def iso(ms: int | None) -> str | None:
    """An instant for --json: ISO 8601 in UTC, or None."""
    if ms is None or ms >= NEVER:
        return None
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


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


def kind_of(form: str) -> str:
    """every, calendar, pulse or once: what the state row's form says the timing is."""
    return form.partition(" ")[0]


def timing(form: str, overdue_ms: int | None = None) -> str:
    """The timing kept in a state row's form, in words: `every 15 minutes`,
    `0 9 * * 1 in Europe/Berlin`, `pulse: 12 shares of 1 hour`, `once at 2026-01-05 09:15 UTC`."""
    kind, _, rest = form.partition(" ")
    try:
        if kind == "every":
            text = span(int(rest))
            return "every " + (text.partition(" ")[2] if text.startswith("1 ") else text)
        if kind == "calendar":
            expression, zone, rules = (part.strip() for part in rest.split("|"))
            words = [f"{expression} in {zone}"]
            for rule in rules.split():
                key, _, value = rule.partition("=")
                if (key, value) not in (("nonexistent", "shift"), ("repeated", "first"), ("days", "vixie")):
                    words.append(f"{key}: {value}")
            if overdue_ms:
                words.append(f"overdue after {span(overdue_ms)}")
            return ", ".join(words)
        if kind == "pulse":
            cycle, _, intervals = rest.partition("/")
            count = int(intervals)
            return f"pulse: {count} share{'' if count == 1 else 's'} of {span(int(cycle))}"
        if kind == "once":
            return f"once at {when(int(rest))}"
    except ValueError:
        pass
    return form
