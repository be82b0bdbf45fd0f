"""The operator's console on the Workers runtime (issue 18), through the Worker's own fetch and
Miniflare's D1: a request without credentials, or with a wrong token, changes nothing; the
bearer token from the Worker's secrets and a Cloudflare Access JWT, checked with Web Crypto,
let the operator in, and the change is logged with who made it."""

import json
import re
import time
import urllib.parse

from conftest import E2E_CONSOLE_AUD, E2E_CONSOLE_TOKEN

from tickwork.times import DAY, utc

NINE = utc("2026-01-05 09:00")
TEAM = "e2e"


def seeded(host):
    assert host.tick(NINE)["ok"]


def is_paused(host, name="always_fails") -> bool:
    return bool(host.d1(f"SELECT paused FROM tickwork_schedules WHERE name = '{name}'")[0]["paused"])


def form_token(host, headers) -> str:
    page = host.fetch("/ops/schedule?name=always_fails", headers=headers)
    assert page.status == 200, page.text
    return re.search(r'name="csrf" value="([^"]+)"', page.text).group(1)


def pause(host, headers, csrf="none"):
    body = urllib.parse.urlencode({"name": "always_fails", "csrf": csrf}).encode()
    return host.fetch("/ops/schedule/pause", "POST", body, {
        "content-type": "application/x-www-form-urlencoded", "origin": host.url, **headers})


BEARER = {"authorization": f"Bearer {E2E_CONSOLE_TOKEN}"}


def test_a_pause_without_credentials_is_401_and_the_schedule_stays_unpaused(host):
    seeded(host)
    assert host.fetch("/ops").status == 401
    assert pause(host, {}).status == 401
    assert pause(host, {}, form_token(host, BEARER)).status == 401
    assert not is_paused(host)
    assert host.d1("SELECT count(*) AS n FROM tickwork_operator_log")[0]["n"] == 0


def test_a_pause_with_a_wrong_token_is_403_and_the_schedule_stays_unpaused(host):
    seeded(host)
    wrong = {"authorization": "Bearer e2e-guess"}
    assert host.fetch("/ops", headers=wrong).status == 403
    assert pause(host, wrong, form_token(host, BEARER)).status == 403
    assert not is_paused(host)


def test_the_token_from_the_worker_s_secrets_pauses_and_the_log_says_token(host):
    seeded(host)
    page = host.fetch("/ops/schedules", headers=BEARER)
    assert page.status == 200 and "always_fails" in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    answer = pause(host, BEARER, form_token(host, BEARER))
    assert answer.status == 200, answer.text
    assert is_paused(host)
    assert host.d1("SELECT who, verb, schedule FROM tickwork_operator_log") == [
        {"who": "token", "verb": "pause", "schedule": "always_fails"}]


def test_a_form_past_8_kb_is_refused_unread_without_credentials_and_413_with_them(host):
    seeded(host)
    big = urllib.parse.urlencode({"name": "always_fails", "pad": "x" * 64 * 1024}).encode()
    headers = {"content-type": "application/x-www-form-urlencoded", "origin": host.url}

    without = host.fetch("/ops/schedule/pause", "POST", big, headers)
    declared = host.fetch("/ops/schedule/pause", "POST", big, {**headers, **BEARER})
    chunked = host.fetch("/ops/schedule/pause", "POST", iter([big[:32_768], big[32_768:]]), {**headers, **BEARER})

    assert (without.status, declared.status, chunked.status) == (401, 413, 413), chunked.text
    assert not is_paused(host)


def test_an_access_jwt_is_checked_with_web_crypto_against_the_team_s_keys(host):
    from console_fixtures import AccessTeam

    seeded(host)
    team = AccessTeam()
    held = host.fetch("/e2e/access-keys", "POST", json.dumps({
        "url": f"https://{TEAM}.cloudflareaccess.com/cdn-cgi/access/certs", "keys": [team.jwk()]}).encode())
    assert held.status == 200
    now = int(time.time() * 1000)  # the Worker checks exp and nbf on its own clock
    claims = {"aud": [E2E_CONSOLE_AUD], "iss": f"https://{TEAM}.cloudflareaccess.com", "email": "ada@e2e.example"}
    good = {"cf-access-jwt-assertion": team.jwt(now, **claims)}
    forged = {"cf-access-jwt-assertion": AccessTeam().jwt(now, **claims)}
    assert host.fetch("/ops", headers=forged).status == 403
    assert pause(host, good, form_token(host, good)).status == 200
    assert host.d1("SELECT who FROM tickwork_operator_log") == [{"who": "ada@e2e.example"}]


def test_a_page_cursor_is_bound_as_a_number_d1_takes_or_refused_with_a_400(host):
    seeded(host)

    longest = host.fetch("/ops/runs?before=999999999999999:x", headers=BEARER)
    past = host.fetch("/ops/runs?before=9007199254740993:x", headers=BEARER)

    assert longest.status == 200, longest.text
    assert past.status == 400 and "`before=9007199254740993:x`" in past.text


def test_the_runs_page_and_the_overview_read_a_ticks_records_on_d1(host):
    """A tick's run ids begin with its tick (migration 0017): D1 reads them by tick along the
    primary key, beside the index by tick of the records made before. (The overview counts the
    last day of the Worker's clock, past these ticks: it shows that D1 runs its statements.)"""
    seeded(host)
    assert host.tick(NINE + DAY)["ok"]  # always_fails, due a day on, fails
    failed = host.d1("SELECT id FROM tickwork_runs WHERE schedule = 'always_fails' AND outcome = 'failed'")
    assert failed and all(row["id"].startswith("z") for row in failed)

    runs = host.fetch("/ops/runs?since=all&outcome=failed", headers=BEARER)
    overview = host.fetch("/ops", headers=BEARER)

    assert runs.status == 200 and "always_fails" in runs.text, runs.text
    assert overview.status == 200 and "runs failed in 24 h" in overview.text, overview.text  # D1 took its counts
