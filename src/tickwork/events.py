"""Events an app emits to its queues, delivered after what emitted them has committed.

    from tickwork import event

    order_placed = event("order_placed", queue="EVENTS")   # EVENTS: a producer binding

    async def place_orders():                               # an action
        await order_placed.emit({"order": 7})

What a run emits is written to D1 with the run's end, and only if the run succeeded; then it is
sent (the outbox). Each message carries its delivery's id, on which consumers dedupe.
"""

import sys

from .context import emitted
from .json_values import NotJSON, json_text
from .records import Record

# Cloudflare Queues take a message of 128 KB at most (Miniflare counts 128,000 bytes); the
# envelope takes a little of that.
LARGEST_BODY = 128_000 - 512


class EventError(ValueError):
    """An event that cannot be emitted, with its code; nothing of what emitted it is lost."""

    def __init__(self, code: str, message: str, mend: str = ""):
        super().__init__(f"{code}: {message}")
        self.code, self.mend = code, mend


class Emitted(Record):
    __slots__ = ("event", "queue", "body")

    def __init__(self, event: str, queue: str, body: str):
        self.event, self.queue, self.body = event, queue, body  # body: JSON


class Event(Record):
    """An event of the app, sent through one producer binding of wrangler.toml."""

    __slots__ = ("name", "queue", "source")

    def __init__(self, name: str, queue: str, source: str = ""):
        self.name, self.queue = name, queue
        self.source = source  # file:line of the declaration, for the build

    async def emit(self, body: object) -> None:
        """Emits `body` (JSON, 128 KB at most as UTF-8, nested at most 100 deep), delivered once
        what emits it has committed."""
        try:
            text, size = json_text(body)
        except NotJSON as error:
            raise EventError("event.body_invalid",
                             f"{self.name}: the body is not JSON tickwork can send: {error}") from None
        if size > LARGEST_BODY:
            raise EventError(
                "event.body_too_large",
                f"{self.name}: the body is {size} bytes as JSON (UTF-8); a queue message takes "
                f"{LARGEST_BODY} at most: send an id and read the rest where it is kept",
            )
        emitted().append(Emitted(self.name, self.queue, text))


def event(name: str, *, queue: str) -> Event:
    """Declares an event sent through the producer binding `queue`; the build checks it is bound.
    A name or queue that is not text raises EventError at once, in the build as in the Worker."""
    for code, what, given in (("event.name_invalid", "name", name), ("event.queue_unbound", "queue", queue)):
        if not _text(given):
            raise EventError(code, f"an event's {what} is a string of text, not {_shown(given)}",
                             "name the event and its producer binding with strings: "
                             'event("order_placed", queue="EVENTS")')
    caller = sys._getframe(1)
    return Event(name, queue, f"{caller.f_code.co_filename}:{caller.f_lineno}")


def _text(value: object) -> bool:
    """A non-empty string D1 and the queues can take: no lone surrogate."""
    if not isinstance(value, str) or not value:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _shown(value: object) -> str:
    if isinstance(value, str):
        return "an empty string" if not value else f"{ascii(value)[:40]}, which is not UTF-8 text"
    return f"{type(value).__name__} {ascii(value)[:40]}"
