"""Access JWTs checked with the runtime's Web Crypto: with adapters/workflows.py, one of the two
modules of tickwork that import `js` (and `pyodide.ffi`, both at the first check that needs them).
Imported by the console's first request on an app that sets an Access team, never at a cold start
(the façade, adapters/workers.py, imports it lazily).
"""

from __future__ import annotations

import asyncio

from .workers import _now, _setting

KEYS_KEPT_MS = 3_600_000  # how long an isolate keeps an Access team's keys
KEYS_REFRESHED_MS = 60_000  # at most one fetch of them a minute, however many unknown keys come
KEYS_TIMEOUT_S = 3.0  # how long a request waits for them: a hung certs URL refuses it (503), not holds it


class WebCryptoVerifier:
    """Access JWTs checked with the runtime's Web Crypto (`crypto.subtle`), against the team's
    keys fetched once an isolate (again after an hour, or when a token names a key not held)."""

    _keys: dict[str, tuple[int, list[dict]]] = {}  # certs URL: (fetched at, keys), per isolate
    _tried: dict[str, int] = {}  # certs URL: when it last answered

    def __init__(self, fetch=None, timeout_s: float = KEYS_TIMEOUT_S):
        self.fetch = fetch  # the runtime's own `fetch` where None
        self.timeout_s = timeout_s

    async def keys(self, url: str, fresh: bool = False) -> list[dict] | None:
        now = _now()
        held = self._keys.get(url)
        kept = held is not None and not fresh and now - held[0] < KEYS_KEPT_MS
        if kept or now - self._tried.get(url, -KEYS_REFRESHED_MS) < KEYS_REFRESHED_MS:
            return held[1] if held else []
        try:
            body = await asyncio.wait_for(self._fetched(url), self.timeout_s)
        except Exception:  # out of reach or too slow: kept for nothing, so the next request tries again
            return held[1] if held else None
        WebCryptoVerifier._tried[url] = now
        found = body.get("keys") if isinstance(body, dict) else None
        if not isinstance(found, list):  # no JWKS: the keys held, if any, still check
            return held[1] if held else []
        keys = [dict(key) for key in found if isinstance(key, dict)]
        WebCryptoVerifier._keys[url] = (now, keys)
        return keys

    async def _fetched(self, url: str):
        """The JSON the certs URL answers; raises where it answers no 2xx."""
        if self.fetch is None:
            from js import fetch
        else:
            fetch = self.fetch
        response = await fetch(url)
        if not response.ok:
            raise ConnectionError(f"{url} answered {getattr(response, 'status', 'not 2xx')}")
        return _setting(await response.json())

    async def rs256(self, jwk: dict, data: bytes, signature: bytes) -> bool:
        import json

        from js import JSON, crypto
        from pyodide.ffi import to_js

        public = {name: jwk[name] for name in ("kty", "n", "e") if name in jwk}
        algorithm = JSON.parse('{"name": "RSASSA-PKCS1-v1_5", "hash": "SHA-256"}')
        try:
            key = await crypto.subtle.importKey("jwk", JSON.parse(json.dumps(public)), algorithm, False,
                                                to_js(["verify"]))
            return bool(await crypto.subtle.verify(algorithm, key, to_js(signature), to_js(data)))
        except Exception:  # a key Web Crypto cannot import is no key of the team's
            return False
