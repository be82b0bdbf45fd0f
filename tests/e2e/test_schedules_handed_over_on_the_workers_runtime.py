"""Schedules handed over at run time from the Worker's `fetch`, ticked on the Workers runtime
against Miniflare's D1: called with their input, cancelled by id, each exactly once when eight
ticks race over a thousand of them, replaced in place, and ended after the calls `times` asks."""

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


STARTS = utc("2030-01-07 09:00")  # ahead of the host's clock: the hand-over's `now` is the Worker's own
MINUTE = 60_000


def every_minute(host, path, **asked):
    answer = host.fetch(path, "POST", json.dumps({"every": MINUTE, "starts": STARTS, **asked}).encode())
    return answer.status, answer.json()


def remembered(host):
    return [row["due_at"] for row in host.d1(
        "SELECT due_at FROM tickwork_runs WHERE schedule LIKE 'remember@%' AND outcome = 'succeeded' ORDER BY due_at")]


def test_a_schedule_handed_over_with_times_2_makes_two_calls_from_its_start_and_ends(host):
    status, answer = every_minute(host, "/hand-over-every", order=21, times=2)
    assert status == 201, answer
    for moment in (STARTS - MINUTE, STARTS, STARTS + MINUTE, STARTS + 2 * MINUTE, STARTS + 3 * MINUTE):
        assert host.tick(moment)["ok"]
    assert remembered(host) == [STARTS, STARTS + MINUTE]
    [row] = host.d1(f"SELECT ended, calls_made FROM tickwork_schedules WHERE name = '{answer['id']}'")
    assert row == {"ended": "made_its_calls", "calls_made": 2}


def test_a_replace_from_fetch_ends_the_old_schedule_and_the_new_one_is_called_in_its_place(host):
    [old] = hand_over(host, [{"order": 22, "at": NINE, "label": "order 22"}])
    status, answer = every_minute(host, "/replace", old=old, order=22, times=1)
    assert status == 201, answer
    again, refused = every_minute(host, "/replace", old=old, order=22, times=3)
    assert (again, refused) == (409, {"code": "item.not_live"})
    for moment in (NINE, STARTS, STARTS + MINUTE):
        assert host.tick(moment)["ok"]
    assert remembered(host) == [STARTS]
    rows = {row["name"]: row for row in host.d1(
        "SELECT name, ended, replaced_by, replaces, label FROM tickwork_schedules WHERE name LIKE 'remember@%'")}
    assert rows[old]["ended"] == "replaced" and rows[old]["replaced_by"] == answer["id"]
    assert (rows[answer["id"]]["replaces"], rows[answer["id"]]["label"]) == (old, "order 22")
