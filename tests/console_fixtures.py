"""What the console's tests share: a store with schedules, runs and deliveries in it, requests to
the console, an RSA key signing Cloudflare Access JWTs, and RS256 checked on CPython (the
`cryptography` package, a test dependency only; the Worker checks with Web Crypto)."""

import base64
import json
import re
from urllib.parse import urlencode

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from helpers import calendar, every, open_store, run, ticks
from harness import FakeQueue
from test_the_outbox import order_placed, outbox

from tickwork import Schedule
from tickwork.app import App
from tickwork.console.access import LOCAL, Checked
from tickwork.console.http import Request
from tickwork.console.routes import serve
from tickwork.grid import Every
from tickwork.model import Retry
from tickwork.per_item import Items
from tickwork.times import MINUTE, utc

NINE = utc("2026-03-02 09:00")  # a Monday
NOW = NINE + 10 * MINUTE
TOKEN = "s3cret-console-token"
TEAM, AUD = "acme", "4714c1358e65fe4b408ad6d432a5f878f08194bdb4752441fd56faefa9b2b6f2"
ORIGIN = "https://app.example"
PREFIX = "/ops"


async def broken():
    raise RuntimeError("the <mail> service is down")


async def placing():
    await order_placed.emit({"order": 7})


async def send_statement():
    pass


SCHEDULES = (
    every(1, "census"),
    Schedule("mailer", Every(MINUTE), broken, source="src/app/domains/mail/mailer.jadpo:3"),
    Schedule("place", Every(5 * MINUTE), placing),
    calendar("0 9 * * 1", "Europe/Berlin", name="weekly"),
)
APP = App("DB", SCHEDULES, console={"prefix": PREFIX, "team": TEAM, "aud": AUD, "token": "CONSOLE_TOKEN"})


def filled_store():
    """Four declared schedules ticked for 10 minutes (mailer failing every time, place emitting
    an order whose send failed once), and two statements handed over: Ada Lovelace's, and one whose input holds markup."""
    db = open_store()
    run(Items(db, lambda: NINE).calendar(send_statement, {"customer": "ada"}, "0 9 * * 1", zone="Europe/Berlin",
                                             label="Ada Lovelace"))
    run(Items(db, lambda: NINE).calendar(send_statement, {"customer": "<script>alert(1)</script>"}, "0 9 * * 1"))
    ticks(db, list(SCHEDULES), *[NINE + k * MINUTE for k in range(6)], outbox=outbox(db, FakeQueue(failures=1)))
    return db


def token_access(token: str | None = TOKEN) -> Checked:
    return Checked(token=token)


def ask(db, method: str, path: str, access=LOCAL, now: int = NOW, headers: dict | None = None,
        form: dict | None = None, app: App = APP):
    """The console's answer to one request made at `now`."""
    body = urlencode(form).encode() if form is not None else b""
    request = Request.of(method, ORIGIN + path, headers or {}, body)
    return run(serve(db, app, request, now, access))


def csrf_of(page_html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page_html).group(1)


def post(db, path: str, fields: dict, access=LOCAL, now: int = NOW, headers: dict | None = None):
    """A POST from the console's own page: its form token read from the overview first."""
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=census", access, now, headers).body)
    return ask(db, "POST", path, access, now, {"origin": ORIGIN, **(headers or {})},
               {**fields, "csrf": token})


def said_of(answer) -> str:
    """What a change said, as its 303 See Other carries it to the page it goes back to (`said=`)."""
    from urllib.parse import parse_qs, urlsplit

    assert answer.status == 303, (answer.status, answer.body)
    return parse_qs(urlsplit(answer.headers["location"]).query)["said"][0]


def paused(db, name: str) -> bool:
    return bool(run(db.all("SELECT paused FROM tickwork_schedules WHERE name = ?1", (name,)))[0]["paused"])


def logged(db) -> list[tuple]:
    return [(row["who"], row["verb"], row["schedule"] or row["delivery"])
            for row in run(db.all("SELECT * FROM tickwork_operator_log ORDER BY at, rowid"))]


# -- Cloudflare Access ----------------------------------------------------------------------------

def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class AccessTeam:
    """A team's signing key, its JWKs, and the JWTs it would issue."""

    def __init__(self, kid: str = "key-1"):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = kid

    def jwk(self) -> dict:
        numbers = self.key.public_key().public_numbers()
        whole = lambda n: _b64(n.to_bytes((n.bit_length() + 7) // 8, "big"))  # noqa: E731
        return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": self.kid, "n": whole(numbers.n), "e": whole(numbers.e)}

    def jwt(self, now: int = NOW, header: dict | None = None, **claims) -> str:
        seconds = now // 1000
        body = {"aud": [AUD], "email": "ada@acme.example", "iss": f"https://{TEAM}.cloudflareaccess.com",
                "iat": seconds - 60, "nbf": seconds - 60, "exp": seconds + 3600, "sub": "u-1", **claims}
        head = {"alg": "RS256", "kid": self.kid, "typ": "JWT", **(header or {})}
        signed = f"{_b64(json.dumps(head).encode())}.{_b64(json.dumps(body).encode())}"
        signature = self.key.sign(signed.encode(), padding.PKCS1v15(), hashes.SHA256())
        return f"{signed}.{_b64(signature)}"


class CPythonVerifier:
    """The verifier port on CPython: the team's keys, held from the first fetch until one
    `fresh`; RS256 by `cryptography`."""

    def __init__(self, *teams: AccessTeam):
        self.teams = list(teams)
        self.fetched: list[tuple[str, bool]] = []
        self.held: list[dict] | None = None

    async def keys(self, url: str, fresh: bool = False) -> list[dict]:
        self.fetched.append((url, fresh))
        if self.held is None or fresh:
            self.held = [team.jwk() for team in self.teams]
        return self.held

    async def rs256(self, jwk: dict, data: bytes, signature: bytes) -> bool:
        from cryptography.exceptions import InvalidSignature

        whole = lambda text: int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")  # noqa: E731
        public = rsa.RSAPublicNumbers(whole(jwk["e"]), whole(jwk["n"])).public_key()
        try:
            public.verify(signature, data, padding.PKCS1v15(), hashes.SHA256())
            return True
        except InvalidSignature:
            return False


def access_of(verifier: CPythonVerifier, token: str | None = TOKEN) -> Checked:
    return Checked(token=token, team=TEAM, aud=AUD, verifier=verifier)


# -- retries, missed occurrences and backfills ------------------------------------------------------

TEN = NINE + 60 * MINUTE
FLAKY = Schedule("flaky", Every(60 * MINUTE), broken, source="src/app/flaky.jadpo:1", retry=Retry(3, MINUTE),
                 limit=2 * MINUTE)
MONTHLY = calendar("0 0 1 * *", name="statement")
JAN, APRIL = utc("2026-01-15 00:00"), utc("2026-04-01 00:05")
RETRYING = App("DB", (FLAKY,), console={"prefix": PREFIX})
BACKFILLING = App("DB", (MONTHLY,), console={"prefix": PREFIX})


def retrying_store():
    """`flaky`, hourly with `retry: 3 after 1m` and `limit: 2m`, failing: its 10:00 run and the
    retry at 10:01 failed, the next attempt waits for 10:03."""
    db = open_store()
    ticks(db, [FLAKY], NINE, TEN, TEN + MINUTE)
    return db


def monthly_store():
    """A monthly statement whose ticks stopped from January 15 to April 1: April's tick made one
    run for the three occurrences owed, February's, March's and April's."""
    db = open_store()
    ticks(db, [MONTHLY], JAN, APRIL)
    return db
