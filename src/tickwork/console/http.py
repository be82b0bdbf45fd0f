"""A request and a response as the console sees them: plain values, whichever host carries them."""

import re
from dataclasses import dataclass, field
from typing import Awaitable, Callable
from urllib.parse import parse_qsl, urlsplit

BODY_MOST = 8 * 1024  # bytes of a console form at most: names, ids, times, a token and the page to go back to


@dataclass(frozen=True)
class Request:
    method: str  # GET, POST, ...
    path: str  # the whole path, the prefix included: `/ops/schedules`
    query: dict[str, str] = field(default_factory=dict)  # each name's last value
    headers: dict[str, str] = field(default_factory=dict)  # names in lower case
    body: bytes = b""
    origin: str | None = None  # scheme://host the request was made to, where the host knows it
    # The host's reader of the body, called only once the request is let in: the body up to `most`
    # bytes, None past them (read no further). Without one, `body` is the body.
    read: Callable[[int], Awaitable[bytes | None]] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, method: str, url: str, headers: dict | None = None, body: bytes = b"") -> "Request":
        """From a method, a URL or a path with its query (`/ops/runs?outcome=failed`), headers."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else None
        return cls(method.upper(), parts.path or "/", dict(parse_qsl(parts.query)),
                   {name.lower(): value for name, value in (headers or {}).items()}, body, origin)

    async def body_within(self, most: int) -> bytes | None:
        """The body, or None where it is longer than `most` bytes, or says it is."""
        declared = self.headers.get("content-length")
        if declared is not None and not (re.fullmatch(r"[0-9]{1,15}", declared) and int(declared) <= most):
            return None
        body = self.body if self.read is None else await self.read(most)
        return body if body is not None and len(body) <= most else None

    def form(self) -> dict[str, str]:
        """A POST's `application/x-www-form-urlencoded` fields, each name's last value."""
        try:
            return dict(parse_qsl(self.body.decode("utf-8"), keep_blank_values=True))
        except UnicodeDecodeError:
            return {}

    def cookie(self, name: str) -> str | None:
        for part in self.headers.get("cookie", "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
        return None


@dataclass(frozen=True)
class Response:
    status: int
    body: str | bytes
    headers: dict[str, str] = field(default_factory=dict)
