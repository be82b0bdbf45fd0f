"""The token each form carries: an HMAC of the operator and a two-hour window, keyed by what only
the operator's credential gives (see access.Identity.key), so another site can neither read nor
make one. A token is good in its window and the next. A POST must also come from the console's
own origin where the browser says where it comes from (Origin, Sec-Fetch-Site).

What a change said travels in its 303 See Other's address (`said=`) with a seal of the same
secret (`seal=`): a page shows it only where the seal holds, so no one can put words of their own
atop an operator's console with a link."""

import hashlib
import hmac

from .access import Identity
from .http import Request

WINDOW = 2 * 3_600_000
FIELD = "csrf"
NOTICE, SEAL = "said", "seal"  # the query parameters of what a change said, and its seal


def token(identity: Identity, now: int) -> str:
    return _token(identity, now // WINDOW)


def _token(identity: Identity, window: int) -> str:
    return _mac(b"tickwork-console-csrf|", identity, f"{identity.who}|{window}", window)


def _mac(use: bytes, identity: Identity, signed: str, window: int) -> str:
    key = hashlib.sha256(use + identity.key).digest()
    return f"{window}.{hmac.new(key, signed.encode(), hashlib.sha256).hexdigest()}"


def sealed(identity: Identity, notice: str, now: int) -> dict[str, str]:
    """The query parameters that carry `notice`, what a change said, to the page it goes back to."""
    window = now // WINDOW
    return {NOTICE: notice, SEAL: _mac(b"tickwork-console-notice|", identity, f"{identity.who}|{notice}", window)}


def opened(identity: Identity, query: dict, now: int) -> str | None:
    """What a change said (`said=`) where its seal (`seal=`) is this operator's, made in this
    window or the last; None for anything else, which the page then shows nothing of."""
    notice, given = query.get(NOTICE), query.get(SEAL)
    if not notice or not given:
        return None
    window = now // WINDOW
    made = (_mac(b"tickwork-console-notice|", identity, f"{identity.who}|{notice}", w) for w in (window, window - 1))
    return notice if any(hmac.compare_digest(given.encode(), mac.encode()) for mac in made) else None


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
