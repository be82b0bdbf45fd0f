"""Who may see the console: a Cloudflare Access JWT for the app's Access application, or the
bearer token kept as a Worker secret; on the local host, whoever reaches its loopback port.

No credentials: 401. Credentials that do not check out: 403. Either way the request reaches
nothing else, so it changes nothing.
"""

import base64
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import Protocol

from .http import Request

CERTS = "https://{team}.cloudflareaccess.com/cdn-cgi/access/certs"
ISSUER = "https://{team}.cloudflareaccess.com"
JWT_HEADER = "cf-access-jwt-assertion"
JWT_COOKIE = "CF_Authorization"
LEEWAY_S = 60  # how far Access's clock may be from the Worker's, either way, for exp and nbf


class Verifier(Protocol):
    """What checking an Access JWT needs from the host: the team's keys and RS256 (Web Crypto
    on the Workers runtime, through its adapter)."""

    async def keys(self, url: str, fresh: bool = False) -> list[dict] | None:
        """The JSON Web Keys at `url` (an Access team's certs); cached unless `fresh`. None where
        they could not be fetched (in time) and none are held."""

    async def rs256(self, jwk: dict, data: bytes, signature: bytes) -> bool:
        """Whether `signature` is an RSASSA-PKCS1-v1_5 SHA-256 signature of `data` by `jwk`."""


@dataclass(frozen=True)
class Identity:
    who: str  # written to the operator log: the Access identity's email, "token" or "local"
    key: bytes  # what this operator's CSRF tokens are keyed by: known only to who holds the credential


@dataclass(frozen=True)
class Refused:
    status: int  # 401 without credentials, 403 with bad ones, 503 while they cannot be checked
    why: str


@dataclass(frozen=True)
class Checked:
    """Access as the Worker checks it: any of the two the app configured."""

    token: str | None = None  # the bearer token secret's value, where the app names one and it is set
    team: str | None = None  # the Access team: <team>.cloudflareaccess.com
    aud: str | None = None  # the Access application's AUD tag
    verifier: Verifier | None = None


class Local:
    """The local host's bridge only: no login. A Python object, never made from a request."""

    _key: bytes | None = None

    def identity(self) -> Identity:
        if Local._key is None:  # made at the first request, never at import (memory snapshots)
            Local._key = secrets.token_bytes(32)
        return Identity("local", Local._key)


LOCAL = Local()


async def identify(request: Request, access: "Checked | Local", now: int) -> Identity | Refused:
    """Who the request comes from, or why it is refused, at `now` (epoch ms)."""
    if isinstance(access, Local):
        return access.identity()
    bearer = _bearer(request)
    jwt = request.headers.get(JWT_HEADER) or request.cookie(JWT_COOKIE)
    if bearer is None and not jwt:
        return Refused(401, "sign in through Cloudflare Access, or send Authorization: Bearer <token>")
    if bearer is not None:
        if access.token and hmac.compare_digest(bearer.encode(), access.token.encode()):
            return Identity("token", b"token|" + access.token.encode())
        return Refused(403, "the bearer token is not the console's")
    if not (access.team and access.aud and access.verifier):
        return Refused(403, "this console takes no Cloudflare Access login")
    assert jwt  # no bearer token: the check above returned without one of the two
    who = await _access_identity(jwt, access, now)
    if who is None:
        return Refused(403, "the Cloudflare Access token is not valid for this console")
    if isinstance(who, Refused):
        return who
    return Identity(who, b"access|" + jwt.encode())


def _bearer(request: Request) -> str | None:
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    return value.strip() if scheme.lower() == "bearer" else None


def b64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


async def _access_identity(jwt: str, access: Checked, now: int) -> str | Refused | None:
    """The email (or a service token's common name) of a JWT signed by the team's key for the
    app's AUD, within its times; None for any other; Refused while the team's keys are out of reach."""
    assert access.verifier is not None  # identify() asks this only of a console with Access set
    try:
        head, body, signature = jwt.split(".")
        header, claims = json.loads(b64url(head)), json.loads(b64url(body))
        signed = b64url(signature)
    except (ValueError, RecursionError):  # json's errors and UnicodeDecodeError are ValueErrors
        return None
    if not isinstance(header, dict) or not isinstance(claims, dict) or header.get("alg") != "RS256":
        return None
    url = CERTS.format(team=access.team)
    keys = await access.verifier.keys(url)
    if keys is None:
        return Refused(503, "the Cloudflare Access team's keys could not be fetched to check the token: "
                            "nothing was read; try again in a moment")
    key = _key(keys, header.get("kid"))
    if key is None:  # the team rotated its keys since they were cached
        key = _key(await access.verifier.keys(url, fresh=True), header.get("kid"))
    if key is None or not await access.verifier.rs256(key, f"{head}.{body}".encode(), signed):
        return None
    seconds = now / 1000
    audience = claims.get("aud")
    audiences = audience if isinstance(audience, list) else [audience]
    exp, nbf = claims.get("exp"), claims.get("nbf", claims.get("iat", 0))
    if not (isinstance(exp, (int, float)) and isinstance(nbf, (int, float))
            and nbf - LEEWAY_S <= seconds < exp + LEEWAY_S):
        return None
    if claims.get("iss") != ISSUER.format(team=access.team) or access.aud not in audiences:
        return None
    who = claims.get("email") or claims.get("common_name") or claims.get("sub")
    return who if isinstance(who, str) and who else None


def _key(keys: list[dict] | None, kid) -> dict | None:
    for key in keys if isinstance(keys, list) else ():
        if isinstance(key, dict) and key.get("kid") == kid and key.get("kty") == "RSA":
            return key
    return None
