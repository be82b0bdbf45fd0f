"""The runs and deliveries pages' filters as their query strings carry them, read and checked: a
value none of the pages' forms writes is a 400 naming it (`Refused`), before anything is read."""

import re

from ..model import Outcome
from ..store.delivery_filters import EARLIEST, DeliveryFilter
from ..store.run_filters import RunFilter
from ..times import DAY, HOUR, NEVER, instant

SINCE = {"1h": HOUR, "24h": DAY, "7d": 7 * DAY}
LONGEST = 1000  # characters of a filter's text
RUN_KEYS = ("since", "from", "to", "outcome", "name", "label", "action", "trace", "error")
DELIVERY_KEYS = ("all", "state", "queue", "event", "schedule", "from", "to")
DELIVERY_STATES = ("pending", "failed", "outcome_unknown", "delivered", "dismissed", "cancelled")
TRACE = re.compile(r"[0-9A-Za-z_.:-]{1,200}")
AFTER = re.compile(r"([0-9]{1,15}):(.*)", re.S)  # a deliveries page's cursor, as its links write it


class Refused(ValueError):
    """A query value none of the console's pages or forms writes: a 400 naming it, before anything
    is read (routes.Unwritten, for every page)."""

    def __init__(self, name: str, value: str, what: str):
        super().__init__(f"`{name}={value}` is not {what}. Nothing was read: follow the console's own links, "
                         "or use its forms")


def text(query: dict, name: str) -> str | None:
    value = (query.get(name) or "").strip() or None
    if value is not None and len(value) > LONGEST:
        raise Refused(name, value[:40] + "...", f"at most {LONGEST} characters long")
    return value


def glob(query: dict, name: str) -> str | None:
    """What a person types as a GLOB: itself where it has wildcards, else a prefix."""
    value = text(query, name)
    return None if value is None else as_glob(value)


def as_glob(value: str) -> str:
    return value if re.search(r"[*?\[]", value) else value + "*"


def moment(query: dict, name: str) -> int | None:
    value = text(query, name)
    if value is None:
        return None
    found = instant(value)
    if found is None or not 0 <= found < NEVER:
        raise Refused(name, value, "a time: write e.g. 2026-01-05T09:15Z (UTC unless it says) or epoch milliseconds")
    return found


def time_range(query: dict, now: int, default_since: str | None) -> tuple[int, int]:
    """From (inclusive) and to (exclusive): a range of one's own where `from` or `to` is given (the
    `since` choice then does not apply), else the last hour, day or week, or every run kept."""
    start, end = moment(query, "from"), moment(query, "to")
    since = query.get("since") or default_since
    if since is not None and since != "all" and since not in SINCE:
        raise Refused("since", since, "one of " + ", ".join((*SINCE, "all")))
    if start is not None and end is not None and end <= start:
        raise Refused("to", query["to"], f"after from ({query['from']})")
    if start is None and end is None:
        return (now - SINCE[since] if since in SINCE else 0), NEVER
    return start or 0, end or NEVER


def run_filter(query: dict, now: int) -> RunFilter:
    outcome = text(query, "outcome")
    if outcome is not None and outcome not in tuple(Outcome):
        raise Refused("outcome", outcome, "one of " + ", ".join(tuple(Outcome)))
    trace = text(query, "trace")
    if trace is not None and not TRACE.fullmatch(trace):
        raise Refused("trace", trace, "a trace id as a run records it (letters, digits, - _ . :)")
    start, end = time_range(query, now, "24h")
    return RunFilter(start, end, outcome, glob(query, "name"), glob(query, "label"), glob(query, "action"), trace,
                     text(query, "error"))


def delivery_filter(query: dict, now: int) -> DeliveryFilter:
    state = text(query, "state")
    if state is not None and state not in DELIVERY_STATES:
        raise Refused("state", state, "one of " + ", ".join(DELIVERY_STATES))
    if query.get("all") not in (None, "", "1"):
        raise Refused("all", query["all"], "1 (every delivery kept) or nothing")
    start, end = time_range(query, now, "all")
    return DeliveryFilter(query.get("all") == "1" or state is not None, state, glob(query, "queue"),
                          glob(query, "schedule"), start, end, glob(query, "event"))


def after(query: dict) -> tuple[float, str]:
    """Where the deliveries page a bulk form came from starts (its `after`), so that it takes what that page shows."""
    value = query.get("after")
    if not value:
        return EARLIEST
    found = AFTER.fullmatch(value)
    if found is None:
        raise Refused("after", value, "a page's bound as the console writes it (<epoch ms>:<id>)")
    return float(found[1]), found[2]


def shown(query: dict, keys: tuple[str, ...]) -> dict:
    """The query's filters, as the page's links carry them on."""
    return {key: value for key, value in query.items() if key in keys and value}
