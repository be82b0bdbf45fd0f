"""Schedules handed over at run time from the Worker's `fetch`, ticked on the Workers runtime
against Miniflare's D1: called with their input, cancelled by id, and each exactly once when
eight ticks race over a thousand of them."""

import json
from concurrent.futures import ThreadPoolExecutor

from tickwork.times import utc

NINE = utc("2026-01-05 09:00")


def hand_over(host, orders):
    answer = host.fetch("/hand-over", "POST", json.dumps(orders).encode())
    assert answer.status == 201, answer
    return answer.json()["ids"]


def calls_made(host):
    return host.d1(
        "SELECT COUNT(*) AS runs, COUNT(DISTINCT schedule) AS schedules FROM tickwork_runs "
        "WHERE schedule LIKE 'remember@%' AND outcome = 'succeeded'"
    )[0]


def test_a_schedule_handed_over_from_fetch_calls_its_action_with_its_input(host):
    [id] = hand_over(host, [{"order": 7, "at": NINE}])
    assert id.startswith("remember@")
    since = len(host.output)
    ticked = host.tick(NINE)
    assert ticked["ok"], ticked
    assert f"e2e: remember 7 at {NINE}" in host.printed("e2e: remember 7", since=since)
    assert calls_made(host) == {"runs": 1, "schedules": 1}


def test_handing_the_same_over_twice_gives_one_schedule(host):
    assert hand_over(host, [{"order": 7, "at": NINE}] * 2) == hand_over(host, [{"order": 7, "at": NINE}])[:1] * 2
    host.tick(NINE)
    assert calls_made(host) == {"runs": 1, "schedules": 1}


def test_a_cancelled_schedule_is_not_called(host):
    [id] = hand_over(host, [{"order": 8, "at": NINE}])
    assert host.fetch("/cancel", "POST", id.encode()).json() == {"cancelled": True}
    host.tick(NINE)
    assert calls_made(host) == {"runs": 0, "schedules": 0}


def test_eight_ticks_racing_over_a_thousand_due_make_each_call_exactly_once(host):
    for start in range(0, 1000, 250):
        hand_over(host, [{"order": n, "at": NINE} for n in range(start, start + 250)])
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: host.tick(NINE), range(8)))
    assert all(answer["ok"] for answer in answers), answers
    assert sum(len(answer["runs"]) for answer in answers) == 1000
    assert calls_made(host) == {"runs": 1000, "schedules": 1000}


FREE_PLAN = 50  # D1 queries an invocation on the Free plan


def hand_over_many(host, count, statements):
    answer = host.fetch("/hand-over-many", "POST", json.dumps(
        {"count": count, "at": NINE, "statements": statements}).encode())
    assert answer.status == 201, answer
    return answer.json()


def handed_over(host):
    return host.d1("SELECT COUNT(*) AS n FROM tickwork_schedules WHERE name LIKE 'remember@%' AND ended IS NULL")[0]["n"]


def test_two_thousand_handed_over_in_bulk_from_fetch_fit_the_free_plans_statements(host):
    done = hand_over_many(host, 2000, FREE_PLAN)
    assert (len(done["ids"]), done["left_over"]) == (2000, 0) and done["statements"] <= FREE_PLAN
    assert handed_over(host) == 2000


def test_what_the_invocations_statements_do_not_reach_is_handed_back_from_fetch(host):
    done = hand_over_many(host, 10_000, 2)
    assert done["statements"] == 2 and 0 < len(done["ids"]) < 10_000
    assert done["left_over"] == 10_000 - len(done["ids"]) and handed_over(host) == len(done["ids"])


def test_two_thousand_cancelled_in_bulk_from_fetch_are_not_called(host):
    ids = hand_over_many(host, 2000, FREE_PLAN)["ids"]
    answer = host.fetch("/cancel-many", "POST", json.dumps({"ids": ids, "statements": FREE_PLAN}).encode()).json()
    assert answer == {"cancelled": 2000, "left_over": 0, "statements": 1}
    host.tick(NINE)
    assert calls_made(host) == {"runs": 0, "schedules": 0}
