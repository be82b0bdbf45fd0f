"""The console's actions (issue 18): pause, resume, run by hand, retry, dismiss or cancel a
delivery, cancel an item, ask for a backfill (listed first) and cancel it. Each is a POST
carrying the form token, from the console's own origin, made by the command's own statements
(operator_store.py) and logged with who made it. Anything else changes nothing."""

import re

import pytest
from console_fixtures import (
    APRIL, BACKFILLING, MONTHLY, NOW, ORIGIN, PREFIX, TOKEN, ask, csrf_of, filled_store, logged, monthly_store, paused,
    post, said_of, token_access,
)
from helpers import run, ticks

from tickwork.console import csrf
from tickwork.console.access import Identity
from tickwork.times import MINUTE, utc

AUTH = {"authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def db():
    return filled_store()


def act(db, path, **fields):
    return post(db, PREFIX + path, fields, token_access(), headers=AUTH)


def schedule(db, name):
    return run(db.all("SELECT * FROM tickwork_schedules WHERE name = ?1", (name,)))[0]


def delivery(db):
    return run(db.all("SELECT * FROM tickwork_deliveries"))[0]


def item(db, customer="ada"):
    return next(row["name"] for row in run(db.all("SELECT name, input FROM tickwork_schedules WHERE action IS NOT NULL"))
                if customer in row["input"])


def test_pause_pauses_and_logs_who_paused(db):
    answer = act(db, "/schedule/pause", name="census")
    assert "census paused" in said_of(answer)
    assert paused(db, "census")
    assert logged(db) == [("token", "pause", "census")]


def test_resume_resumes_a_paused_schedule_and_logs_it(db):
    act(db, "/schedule/pause", name="census")
    assert act(db, "/schedule/resume", name="census").status == 303
    assert not paused(db, "census")
    assert logged(db)[-1] == ("token", "resume", "census")


def test_run_by_hand_asks_the_next_tick_for_a_run(db):
    assert act(db, "/schedule/run", name="census").status == 303
    state = schedule(db, "census")
    assert (state["run_requested_at"], state["run_requested_by"]) == (NOW, "token")
    assert logged(db) == [("token", "run", "census")]


def test_cancel_ends_an_item_handed_over_and_logs_it(db):
    name = item(db)
    assert act(db, "/schedule/cancel", name=name).status == 303
    state = schedule(db, name)
    assert (state["ended"], state["removed_at"]) == ("cancelled", NOW)
    assert logged(db) == [("token", "cancel", name)]


def test_a_declared_schedule_cannot_be_cancelled(db):
    answer = act(db, "/schedule/cancel", name="census")
    assert answer.status == 409
    assert schedule(db, "census")["removed_at"] is None and logged(db) == []


@pytest.mark.parametrize("verb, state", [("retry", "pending"), ("dismiss", "dismissed"), ("cancel", "cancelled")])
def test_a_delivery_is_retried_dismissed_or_cancelled_and_logged(db, verb, state):
    id = delivery(db)["id"]
    assert act(db, f"/delivery/{verb}", id=id).status == 303
    assert delivery(db)["state"] == state
    assert logged(db) == [("token", verb, id)]


def test_a_change_that_finds_nothing_to_change_is_409_and_logs_nothing(db):
    act(db, "/schedule/pause", name="census")
    answer = act(db, "/schedule/pause", name="census")
    assert answer.status == 409 and "already paused" in answer.body
    assert logged(db) == [("token", "pause", "census")]


def test_a_change_to_no_such_schedule_is_404(db):
    assert act(db, "/schedule/pause", name="nobody").status == 404
    assert logged(db) == []


def test_a_post_without_the_form_token_is_403_and_changes_nothing(db):
    answer = ask(db, "POST", f"{PREFIX}/schedule/pause", token_access(), headers={**AUTH, "origin": ORIGIN},
                 form={"name": "census"})
    assert answer.status == 403
    assert not paused(db, "census") and logged(db) == []


def test_a_form_token_made_for_another_operator_is_403(db):
    other = csrf.token(Identity("token", b"token|another-secret"), NOW)
    answer = ask(db, "POST", f"{PREFIX}/schedule/pause", token_access(), headers={**AUTH, "origin": ORIGIN},
                 form={"name": "census", "csrf": other})
    assert answer.status == 403 and not paused(db, "census")


def test_a_form_token_is_good_for_its_window_and_the_next_then_stale(db):
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=census", token_access(), headers=AUTH).body)

    def pause(at):
        return ask(db, "POST", f"{PREFIX}/schedule/pause", token_access(), now=at,
                   headers={**AUTH, "origin": ORIGIN}, form={"name": "census", "csrf": token}).status

    assert pause(NOW + 2 * csrf.WINDOW) == 403
    assert pause(NOW + csrf.WINDOW) == 303


@pytest.mark.parametrize("headers", [
    {"origin": "https://evil.example"},
    {"origin": "null"},
    {"sec-fetch-site": "cross-site"},
    {"sec-fetch-site": "same-site"},
])
def test_a_post_from_another_site_is_403_even_with_the_form_token(db, headers):
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=census", token_access(), headers=AUTH).body)
    answer = ask(db, "POST", f"{PREFIX}/schedule/pause", token_access(), headers={**AUTH, **headers},
                 form={"name": "census", "csrf": token})
    assert answer.status == 403
    assert not paused(db, "census") and logged(db) == []


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_an_action_asked_for_by_any_method_but_post_changes_nothing(db, method):
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=census", token_access(), headers=AUTH).body)
    answer = ask(db, method, f"{PREFIX}/schedule/pause?name=census&csrf={token}", token_access(), headers=AUTH)
    assert answer.status in (404, 405)
    assert not paused(db, "census") and logged(db) == []


def test_the_answer_goes_back_only_to_a_page_of_the_console(db):
    answer = post(db, f"{PREFIX}/schedule/pause", {"name": "census", "back": "https://evil.example/"},
                  token_access(), headers=AUTH)
    assert answer.status == 303 and answer.headers["location"].startswith("/ops?said=")


def test_a_refused_change_answers_with_a_page_that_links_back_only_into_the_console(db):
    act(db, "/schedule/pause", name="census")
    answer = post(db, f"{PREFIX}/schedule/pause", {"name": "census", "back": "https://evil.example/"},
                  token_access(), headers=AUTH)
    assert answer.status == 409 and 'href="https://evil.example/"' not in answer.body
    assert re.search(r'href="/ops"', answer.body)


# -- backfill, as `tickwork backfill NAME --from --to` asks for it ---------------------------------

FEB, MARCH = "2026-02-01T00:00Z", "2026-03-01T00:00Z"


@pytest.fixture
def monthly():
    return monthly_store()


def backfill(db, now=APRIL + MINUTE, csrf_token=None, **fields):
    """A POST of the one-schedule page's backfill form, its form token read from that page."""
    token = csrf_token
    if token is None:
        token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=statement", now=now, app=BACKFILLING).body)
    return ask(db, "POST", f"{PREFIX}/schedule/backfill", now=now, headers={"origin": ORIGIN},
               form={"name": "statement", **fields, "csrf": token}, app=BACKFILLING)


def asked(db):
    return [(row["from_at"], row["to_at"], row["who"], row["state"])
            for row in run(db.all("SELECT * FROM tickwork_backfills ORDER BY requested_at"))]


def test_a_backfill_asks_for_what_tickwork_backfill_asks_for_and_logs_who_asked(monthly):
    answer = backfill(monthly, **{"from": FEB, "to": MARCH})
    assert "statement: 2 occurrences from 2026-02-01 00:00 UTC to 2026-03-01 00:00 UTC" in said_of(answer)
    assert asked(monthly) == [(utc("2026-02-01 00:00"), utc("2026-03-01 00:00"), "local", "pending")]
    assert logged(monthly) == [("local", "backfill", "statement")]


def test_a_backfill_listed_first_shows_the_occurrences_and_changes_nothing(monthly):
    answer = backfill(monthly, dry="1", **{"from": FEB, "to": "2026-04-01T00:00Z"})
    assert answer.status == 200
    assert "2026-02-01 00:00 UTC" in answer.body and "2026-03-01 00:00 UTC" in answer.body
    assert "(1 made already)" in answer.body  # April's, which April's run covered
    assert 'name="from" value="2026-02-01T00:00Z"' in answer.body  # the form that asks for it
    assert asked(monthly) == [] and logged(monthly) == []


@pytest.mark.parametrize("start, end, says", [
    (MARCH, FEB, "from 2026-03-01T00:00:00.000Z is after to 2026-02-01T00:00:00.000Z"),
    (FEB, "2026-05-01T00:00Z", "to 2026-05-01T00:00:00.000Z is after now"),
    ("May 5", FEB, "from: `May 5` is no time"),
    ("2026-02-01T00:00Z\x00", FEB, "is no time"),  # Python's fromisoformat stops at the NUL
    (FEB, "", "a backfill needs both from and to"),
])
def test_a_bad_range_is_a_400_with_its_code_and_asks_for_nothing(monthly, start, end, says):
    answer = backfill(monthly, **{"from": start, "to": end})
    assert answer.status == 400
    assert "backfill.range_invalid" in answer.body and says in answer.body
    assert asked(monthly) == [] and logged(monthly) == []


def test_a_time_echoed_into_the_refusal_is_escaped(monthly):
    answer = backfill(monthly, **{"from": "<script>alert(1)</script>", "to": FEB})
    assert answer.status == 400
    assert "<script>" not in answer.body and "&lt;script&gt;alert(1)&lt;/script&gt;" in answer.body


def test_a_backfill_of_a_removed_schedule_is_refused_with_its_code(monthly):
    token = csrf_of(ask(monthly, "GET", f"{PREFIX}/schedule?name=statement", now=APRIL, app=BACKFILLING).body)
    ticks(monthly, [], APRIL + MINUTE)
    answer = backfill(monthly, now=APRIL + 2 * MINUTE, csrf_token=token, **{"from": FEB, "to": MARCH})
    assert answer.status == 400 and "backfill.schedule_removed" in answer.body
    assert asked(monthly) == []


def test_a_backfill_of_no_such_schedule_is_404(monthly):
    token = csrf_of(ask(monthly, "GET", f"{PREFIX}/schedule?name=statement", now=APRIL, app=BACKFILLING).body)
    answer = ask(monthly, "POST", f"{PREFIX}/schedule/backfill", now=APRIL, headers={"origin": ORIGIN},
                 form={"name": "nobody", "from": FEB, "to": MARCH, "csrf": token}, app=BACKFILLING)
    assert answer.status == 404 and asked(monthly) == []


def test_a_backfill_without_the_form_token_is_403_and_asks_for_nothing(monthly):
    answer = backfill(monthly, csrf_token="", **{"from": FEB, "to": MARCH})
    assert answer.status == 403
    assert asked(monthly) == [] and logged(monthly) == []


def test_a_pending_backfill_is_listed_with_a_button_that_cancels_it_and_logs_it(monthly):
    backfill(monthly, **{"from": FEB, "to": MARCH})
    page = ask(monthly, "GET", f"{PREFIX}/schedule?name=statement", now=APRIL + MINUTE, app=BACKFILLING).body
    [id] = re.findall(r'action="/ops/backfill/cancel".*?name="id" value="([0-9a-f]+)"', page)
    answer = ask(monthly, "POST", f"{PREFIX}/backfill/cancel", now=APRIL + MINUTE, headers={"origin": ORIGIN},
                 form={"id": id, "csrf": csrf_of(page)}, app=BACKFILLING)
    assert f"cancelled backfill {id} of statement" in said_of(answer)
    assert [state for *_, state in asked(monthly)] == ["cancelled"]
    assert logged(monthly)[-1] == ("local", "cancel_backfill", "statement")


def test_cancelling_a_backfill_no_longer_pending_is_409(monthly):
    backfill(monthly, **{"from": FEB, "to": FEB})
    ticks(monthly, [MONTHLY], APRIL + MINUTE)
    [row] = run(monthly.all("SELECT id FROM tickwork_backfills"))
    token = csrf_of(ask(monthly, "GET", f"{PREFIX}/schedule?name=statement", now=APRIL, app=BACKFILLING).body)
    answer = ask(monthly, "POST", f"{PREFIX}/backfill/cancel", now=APRIL + 2 * MINUTE, headers={"origin": ORIGIN},
                 form={"id": row["id"], "csrf": token}, app=BACKFILLING)
    assert answer.status == 409 and "backfill.not_pending" in answer.body and "is done" in answer.body
