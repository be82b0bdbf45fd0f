"""Times in tickwork are integers: milliseconds since the Unix epoch, UTC.

D1 carries integers exactly only up to 2**53, and every clock the runtime meets
(`controller.scheduledTime`, `Date.now()`) already speaks milliseconds.
"""

import re
from datetime import datetime, timezone

SECOND = 1_000
MINUTE = 60 * SECOND
MARK = 10 * SECOND  # a Worker with queues bound ticks at each 10-second mark
HOUR = 60 * MINUTE
DAY = 24 * HOUR

UNITS = {"s": SECOND, "m": MINUTE, "h": HOUR, "d": DAY}

# Past every time a schedule can come due: the largest integer the D1 binding carries exactly.
NEVER = 2**53 - 1
# The longest duration an item may take: a century keeps every due time far below NEVER.
LONGEST = 36_500 * DAY

# Compiled at first use (re's cache), not at a Worker's cold start. ASCII digits only: `１５m` is no number.
_DURATION = r"([0-9]+)([smhd])"
_WHOLE = r"[0-9]+"
_DIGITS = 15  # past this many, a number is larger than any duration takes: int() never sees 4,300


def whole(digits: str) -> int | None:
    """ASCII digits as a number (one past any duration where there are too many), else None."""
    if not re.fullmatch(_WHOLE, digits):
        return None
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= _DIGITS else 10**_DIGITS


def duration_ms(text: str, bare_seconds: bool = False) -> int | None:
    """`15m`, `30s`, `1h`, `1d` (and, with `bare_seconds`, `900`) in ms, where it is a whole
    number above zero; None otherwise."""
    match = re.fullmatch(_DURATION, text)
    if match:
        count, unit = whole(match.group(1)), UNITS[match.group(2)]
    elif bare_seconds:
        count, unit = whole(text), SECOND
    else:
        return None
    return count * unit if count else None


def written(ms: int) -> str:
    """A duration as duration_ms reads it back, in its largest exact unit: `30m`, `90s`, `1d`."""
    for name, unit in sorted(UNITS.items(), key=lambda item: -item[1]):
        if ms % unit == 0:
            return f"{ms // unit}{name}"
    return f"{ms}ms"


def to_datetime(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc)


def from_datetime(moment: datetime) -> int:
    if moment.tzinfo is None:
        raise ValueError("naive datetime: tickwork times are UTC, give a tzinfo")
    delta = moment - datetime(1970, 1, 1, tzinfo=timezone.utc)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def instant(text: str) -> int | None:
    """An instant as an operator writes it: epoch ms, or an ISO time (UTC unless it says
    otherwise: `2026-01-05T09:15Z`, `2026-01-05T09:15`); None where it is neither."""
    if re.fullmatch(r"[0-9]{10,16}", text):
        return int(text)
    if not (text.isascii() and text.isprintable()):  # fromisoformat reads `...Z\x00junk` as `...Z`
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00") if text.endswith("Z") else text)
        return from_datetime(moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc))
    except (ValueError, OverflowError):  # no time, or one past the years datetime holds
        return None


def utc(text: str) -> int:
    """`utc("2026-01-05 09:00")` or with seconds: a readable UTC literal as milliseconds."""
    return from_datetime(datetime.fromisoformat(text).replace(tzinfo=timezone.utc))


def iso(ms: int) -> str:
    return to_datetime(ms).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
