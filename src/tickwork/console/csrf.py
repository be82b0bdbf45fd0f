"""The token each form carries: an HMAC of the operator and a two-hour window, keyed by what only
the operator's credential gives (see access.Identity.key), so another site can neither read nor
make one. A token is good in its window and the next. A POST must also come from the console's
own origin where the browser says where it comes from (Origin, Sec-Fetch-Site)."""

import hashlib
import hmac

from .access import Identity
from .http import Request

WINDOW = 2 * 3_600_000
FIELD = "csrf"


def token(identity: Identity, now: int) -> str:
    return _token(identity, now // WINDOW)


def _token(identity: Identity, window: int) -> str:
    key = hashlib.sha256(b"tickwork-console-csrf|" + identity.key).digest()
    return f"{window}.{hmac.new(key, f'{identity.who}|{window}'.encode(), hashlib.sha256).hexdigest()}"


def good(identity: Identity, given: str | None, now: int) -> bool:
    if not given:
        return False
    window = now // WINDOW
    return any(hmac.compare_digest(given.encode(), _token(identity, w).encode()) for w in (window, window - 1))


def foreign(request: Request, origin: str | None) -> str | None:
    """Why a POST comes from another site, or None: its Origin is not `origin` (the console's
    own, where the host knows it) or its Sec-Fetch-Site says cross-site."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return f"it comes from another site (Sec-Fetch-Site: {site})"
    given = request.headers.get("origin")
    if given is not None and (given == "null" or (origin is not None and given.lower() != origin.lower())):
        return f"its Origin {given} is not the console's own"
    return None
