"""Who may use the console (issue 18): a Cloudflare Access JWT for the app's AUD, RS256-signed by
the team's key and within its times, or the bearer token kept as a Worker secret. Without
credentials 401, with bad ones 403, and either way nothing changes."""

import asyncio
from types import SimpleNamespace
from urllib.parse import urlencode

import pytest
from console_fixtures import (
    APP, AUD, NOW, ORIGIN, PREFIX, TEAM, TOKEN, AccessTeam, CPythonVerifier, access_of, ask, csrf_of, filled_store,
    logged, paused, post, token_access,
)
from helpers import run

from tickwork.adapters.workers import KEYS_TIMEOUT_S, WebCryptoVerifier
from tickwork.console.access import CERTS, LOCAL, Checked
from tickwork.console.http import BODY_MOST, Request
from tickwork.console.routes import serve
from tickwork.times import HOUR

TEAM_KEY = AccessTeam()


@pytest.fixture
def db():
    return filled_store()


def bearer(token: str) -> dict:
    return {"authorization": f"Bearer {token}"}


def test_a_request_without_credentials_is_401_and_shows_nothing(db):
    answer = ask(db, "GET", PREFIX, token_access())
    assert answer.status == 401
    assert answer.headers["www-authenticate"].startswith("Bearer")
    assert "census" not in answer.body


def test_a_pause_without_credentials_is_401_and_the_schedule_is_not_paused(db):
    answer = ask(db, "POST", f"{PREFIX}/schedule/pause", token_access(), form={"name": "census", "csrf": "x"})
    assert answer.status == 401
    assert not paused(db, "census") and logged(db) == []


def test_a_wrong_token_is_403_and_changes_nothing(db):
    answer = ask(db, "POST", f"{PREFIX}/schedule/pause", token_access(), headers=bearer("guess"),
                 form={"name": "census", "csrf": "x"})
    assert answer.status == 403
    assert not paused(db, "census") and logged(db) == []


def test_the_token_lets_the_operator_in_as_token(db):
    answer = ask(db, "GET", PREFIX, token_access(), headers=bearer(TOKEN))
    assert answer.status == 200 and "token ·" in answer.body


def test_a_token_is_refused_where_the_secret_is_not_set(db):
    assert ask(db, "GET", PREFIX, token_access(None), headers=bearer("")).status == 403
    assert ask(db, "GET", PREFIX, token_access(None), headers=bearer("anything")).status == 403


def test_an_access_jwt_lets_its_email_in_from_the_header_or_the_cookie(db):
    verifier = CPythonVerifier(TEAM_KEY)
    jwt = TEAM_KEY.jwt()
    by_header = ask(db, "GET", PREFIX, access_of(verifier), headers={"cf-access-jwt-assertion": jwt})
    by_cookie = ask(db, "GET", PREFIX, access_of(verifier), headers={"cookie": f"theme=dark; CF_Authorization={jwt}"})
    assert by_header.status == by_cookie.status == 200
    assert "ada@acme.example ·" in by_header.body
    assert verifier.fetched[0] == (CERTS.format(team=TEAM), False)


def test_a_change_through_access_is_logged_with_the_identity_s_email(db):
    headers = {"cf-access-jwt-assertion": TEAM_KEY.jwt()}
    answer = post(db, f"{PREFIX}/schedule/pause", {"name": "census"}, access_of(CPythonVerifier(TEAM_KEY)),
                  headers=headers)
    assert answer.status == 303
    assert logged(db) == [("ada@acme.example", "pause", "census")]


OTHER_KEY = AccessTeam()  # the same kid, another key: a forgery


@pytest.mark.parametrize("jwt", [
    pytest.param(TEAM_KEY.jwt(exp=(NOW - HOUR) // 1000), id="expired"),
    pytest.param(TEAM_KEY.jwt(nbf=(NOW + HOUR) // 1000), id="not yet valid"),
    pytest.param(TEAM_KEY.jwt(aud=["another-application-aud-tag-0001"]), id="another application"),
    pytest.param(TEAM_KEY.jwt(aud=AUD + "x"), id="an aud that only starts alike"),
    pytest.param(TEAM_KEY.jwt(iss="https://evil.cloudflareaccess.com"), id="another team"),
    pytest.param(OTHER_KEY.jwt(), id="signed by another key"),
    pytest.param(TEAM_KEY.jwt(header={"alg": "none"}), id="alg none"),
    pytest.param(TEAM_KEY.jwt(header={"alg": "HS256"}), id="alg HS256"),
    pytest.param(TEAM_KEY.jwt(header={"kid": "unknown"}), id="an unknown key"),
    pytest.param(TEAM_KEY.jwt().rsplit(".", 1)[0] + ".AAAA", id="a bad signature"),
    pytest.param("not.a.jwt", id="garbage"),
    pytest.param("", id="empty header"),
])
def test_a_bad_access_jwt_is_403_and_changes_nothing(db, jwt):
    access = access_of(CPythonVerifier(TEAM_KEY))
    headers = {"cf-access-jwt-assertion": jwt}
    answer = ask(db, "POST", f"{PREFIX}/schedule/pause", access, headers=headers, form={"name": "census"})
    assert answer.status == (401 if jwt == "" else 403)
    assert not paused(db, "census") and logged(db) == []


def test_a_jwt_for_a_key_not_held_fetches_the_team_s_keys_again_once(db):
    rotated = AccessTeam(kid="key-2")
    verifier = CPythonVerifier(TEAM_KEY)
    assert ask(db, "GET", PREFIX, access_of(verifier), headers={"cf-access-jwt-assertion": TEAM_KEY.jwt()}).status == 200
    verifier.teams.append(rotated)  # the team rotates its keys; the cached ones lack the new
    answer = ask(db, "GET", PREFIX, access_of(verifier), headers={"cf-access-jwt-assertion": rotated.jwt()})
    assert answer.status == 200
    assert [fresh for _, fresh in verifier.fetched] == [False, False, True]


def test_an_app_without_access_settings_refuses_any_jwt(db):
    answer = ask(db, "GET", PREFIX, Checked(token=TOKEN), headers={"cf-access-jwt-assertion": TEAM_KEY.jwt()})
    assert answer.status == 403


def test_the_local_host_serves_the_console_without_login_as_local(db):
    answer = ask(db, "GET", PREFIX, LOCAL)
    assert answer.status == 200 and "local ·" in answer.body


def test_a_jwt_issued_by_a_clock_a_little_ahead_of_the_worker_s_lets_its_email_in(db):
    ahead = (NOW + 30_000) // 1000  # Access's clock half a minute ahead: a login just made
    jwt = TEAM_KEY.jwt(iat=ahead, nbf=ahead)

    answer = ask(db, "GET", PREFIX, access_of(CPythonVerifier(TEAM_KEY)), headers={"cf-access-jwt-assertion": jwt})

    assert answer.status == 200


def test_a_jwt_nested_past_the_parser_s_depth_is_403_not_an_error(db):
    deep = b64("[" * 100_000)
    answer = ask(db, "GET", PREFIX, access_of(CPythonVerifier(TEAM_KEY)),
                 headers={"cf-access-jwt-assertion": f"{deep}.{deep}.AAAA"})

    assert answer.status == 403


def b64(text: str) -> str:
    import base64

    return base64.urlsafe_b64encode(text.encode()).rstrip(b"=").decode()


# -- the team's keys as the Worker fetches them ------------------------------------------------------

class FetchingVerifier(WebCryptoVerifier):
    """The Worker's verifier, its keys fetched by the `fetch` given; RS256 on CPython."""

    rs256 = CPythonVerifier.rs256


@pytest.fixture
def no_keys_held():
    WebCryptoVerifier._keys.clear()
    WebCryptoVerifier._tried.clear()
    yield
    WebCryptoVerifier._keys.clear()
    WebCryptoVerifier._tried.clear()


def answering(body):
    """A fetch whose response is `body` as JSON."""

    async def fetch(url):
        async def json():
            return body

        return SimpleNamespace(ok=True, json=json)

    return fetch


async def never(url):
    await asyncio.get_running_loop().create_future()  # the certs URL hangs


@pytest.mark.parametrize("body", [{"keys": None}, {"keys": 7}, {"keys": "x"}, [7], None])
def test_access_keys_answered_as_no_list_of_keys_are_403_not_an_error(db, no_keys_held, body):
    answer = ask(db, "GET", PREFIX, access_of(FetchingVerifier(answering(body))),
                 headers={"cf-access-jwt-assertion": TEAM_KEY.jwt()})
    assert answer.status == 403


def test_keys_a_verifier_gives_as_no_list_are_403_not_an_error(db):
    class Seven(CPythonVerifier):
        async def keys(self, url, fresh=False):
            return 7

    answer = ask(db, "GET", PREFIX, access_of(Seven()), headers={"cf-access-jwt-assertion": TEAM_KEY.jwt()})
    assert answer.status == 403


def test_the_keys_fetch_is_bounded_and_one_that_timed_out_is_not_kept(db, no_keys_held):
    jwt = {"cf-access-jwt-assertion": TEAM_KEY.jwt()}
    timed_out = ask(db, "GET", PREFIX, access_of(FetchingVerifier(never, timeout_s=0.01)), headers=jwt)
    afterwards = ask(db, "GET", PREFIX, access_of(FetchingVerifier(answering({"keys": [TEAM_KEY.jwk()]}))),
                     headers=jwt)

    assert timed_out.status == 503 and "could not be fetched" in timed_out.body
    assert afterwards.status == 200


def test_the_keys_fetch_is_bounded_by_default():
    assert 1 <= FetchingVerifier(never).timeout_s <= KEYS_TIMEOUT_S <= 5


# -- the body of a request: read only once let in, and a few KB at most ------------------------------

def reading(db, access, headers, body: bytes):
    """A POST whose body is read through the host's reader, and what the reader was asked for."""
    asked = []

    async def read(most):
        asked.append(most)
        return body if len(body) <= most else None

    request = Request("POST", f"{PREFIX}/schedule/pause", {}, {"origin": ORIGIN, **headers}, b"", ORIGIN, read)
    return run(serve(db, APP, request, NOW, access)), asked


def test_a_post_without_credentials_or_with_bad_ones_is_refused_before_its_body_is_read(db):
    body = b"name=census&csrf=x&" + b"x" * 64 * 1024 * 1024
    without, asked_without = reading(db, token_access(), {}, body)
    wrong, asked_wrong = reading(db, token_access(), bearer("guess"), body)

    assert (without.status, wrong.status) == (401, 403)
    assert asked_without == asked_wrong == []


def test_a_form_past_the_console_s_few_kb_is_413_and_changes_nothing(db):
    padded = post(db, f"{PREFIX}/schedule/pause", {"name": "census", "pad": "x" * BODY_MOST}, token_access(),
                  headers=bearer(TOKEN))
    answer, asked = reading(db, token_access(), bearer(TOKEN), b"name=census&pad=" + b"x" * BODY_MOST)
    declared = ask(db, "POST", f"{PREFIX}/schedule/pause", token_access(),
                   headers={**bearer(TOKEN), "content-length": str(64 * 1024 * 1024)}, form={"name": "census"})

    assert padded.status == answer.status == declared.status == 413
    assert asked == [BODY_MOST]
    assert f"at most {BODY_MOST} bytes" in padded.body
    assert not paused(db, "census") and logged(db) == []


def test_a_form_within_the_console_s_few_kb_is_read_through_the_host_s_reader(db):
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=census", token_access(), headers=bearer(TOKEN)).body)
    answer, asked = reading(db, token_access(), bearer(TOKEN), urlencode({"name": "census", "csrf": token}).encode())

    assert answer.status == 303 and paused(db, "census")
