"""What a change said, shown atop the page its 303 See Other goes back to (issue 26), is the
console's own: it travels sealed with the operator's CSRF secret (csrf.sealed), and a page shows
nothing of a `said=` whose seal does not hold, so no link can put words of its own atop an
operator's console ("session expired, sign in at ...")."""

from urllib.parse import urlencode

import pytest
from console_fixtures import NOW, PREFIX, TOKEN, ask, filled_store, post, said_of, token_access

from tickwork.console import csrf
from tickwork.console.access import LOCAL
from tickwork.console.csrf import WINDOW

PHISH = "Your session expired: sign in again at https://evil.example/login"


@pytest.fixture(scope="module")
def db():
    return filled_store()


def schedule_page(db, query: dict, access=LOCAL, now: int = NOW, headers: dict | None = None) -> str:
    answer = ask(db, "GET", f"{PREFIX}/schedule?name=census&{urlencode(query)}", access, now, headers)
    assert answer.status == 200, answer.body
    return answer.body


def sealed(notice: str, now: int = NOW) -> dict:
    return csrf.sealed(LOCAL.identity(), notice, now)


def test_a_sealed_notice_is_shown_atop_the_page_escaped(db):
    body = schedule_page(db, sealed("paused <b>census</b>"))
    assert '<p class="said">paused &lt;b&gt;census&lt;/b&gt;</p>' in body


@pytest.mark.parametrize("query", [
    {"said": PHISH},
    {"said": PHISH, "seal": ""},
    {"said": PHISH, "seal": "0.deadbeef"},
    {"said": PHISH, "seal": sealed("census paused (logged as local).")["seal"]},  # another notice's seal
], ids=["no seal", "empty seal", "made-up seal", "another notice's seal"])
def test_a_forged_notice_shows_nothing(db, query):
    body = schedule_page(db, query)
    assert "evil.example" not in body and 'class="said"' not in body


def test_a_notice_sealed_for_another_operator_shows_nothing(db):
    bearer = {"authorization": f"Bearer {TOKEN}"}
    body = schedule_page(db, sealed(PHISH), access=token_access(), headers=bearer)
    assert "evil.example" not in body, "sealed with the local bridge's secret, read with the token's"


def test_a_notice_is_shown_for_a_window_and_the_next_then_no_longer(db):
    query = sealed("census paused (logged as local).")
    assert 'class="said"' in schedule_page(db, query, now=NOW + WINDOW)
    assert 'class="said"' not in schedule_page(db, query, now=NOW + 2 * WINDOW)


def test_a_change_s_303_carries_its_notice_sealed_and_the_page_shows_it(db):
    answer = post(db, f"{PREFIX}/schedule/pause", {"name": "census", "back": f"{PREFIX}/schedule?name=census"})
    assert "census paused" in said_of(answer) and "&seal=" in answer.headers["location"]
    page = ask(db, "GET", answer.headers["location"]).body
    assert '<p class="said">census paused' in page
    post(db, f"{PREFIX}/schedule/resume", {"name": "census", "back": f"{PREFIX}/schedule?name=census"})


def test_a_back_address_with_control_characters_goes_back_to_the_overview(db):
    back = f"{PREFIX}/schedule?name=census\r\nset-cookie: x=1"
    answer = post(db, f"{PREFIX}/schedule/pause", {"name": "census", "back": back})
    assert answer.headers["location"].startswith(f"{PREFIX}?said=") and "\n" not in answer.headers["location"]
    post(db, f"{PREFIX}/schedule/resume", {"name": "census", "back": f"{PREFIX}/schedule?name=census"})
