"""Concurrency per key on the Workers runtime against Miniflare's D1 (issue 25): items handed over
from the Worker's `fetch` with `concurrency=(key, K)` go at most K a tick, the rest owed (never
skipped) for later ticks in due order, each exactly once when eight ticks race."""

import json
from concurrent.futures import ThreadPoolExecutor

from tickwork.times import MINUTE, utc

NINE = utc("2026-01-05 09:00")


def hand_over(host, count, key="api:acme", limit=4):
    answer = host.fetch("/hand-over-limited", "POST", json.dumps(
        {"count": count, "at": NINE, "key": key, "limit": limit}).encode())
    assert answer.status == 201, answer
    return answer.json()["ids"]


def made(host):
    return host.d1("SELECT outcome, COUNT(*) AS n, COUNT(DISTINCT schedule) AS schedules FROM tickwork_runs "
                   "WHERE schedule LIKE 'remember@%' GROUP BY outcome")


def test_a_tick_makes_at_most_the_keys_limit_and_the_rest_wait_owed_never_skipped(host):
    assert len(hand_over(host, 10)) == 10
    first = host.tick(NINE)
    assert first["ok"], first
    assert made(host) == [{"outcome": "succeeded", "n": 4, "schedules": 4}]
    owed = host.d1("SELECT COUNT(*) AS n FROM tickwork_schedules WHERE name LIKE 'remember@%' AND ended IS NULL "
                   "AND concurrency_key = 'api:acme' AND concurrency_limit = 4")
    assert owed == [{"n": 6}]  # due still, with no record: owed, not missed
    host.tick(NINE + MINUTE)
    host.tick(NINE + 2 * MINUTE)
    assert made(host) == [{"outcome": "succeeded", "n": 10, "schedules": 10}]


def test_eight_ticks_racing_over_a_keyed_backlog_make_each_call_exactly_once(host):
    hand_over(host, 40, limit=5)
    for moment in [NINE + k * MINUTE for k in range(8)]:
        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(host.tick, [moment] * 8))
        assert all(answer["ok"] for answer in answers), answers
        assert sum(len(answer["runs"]) for answer in answers) <= 40
    assert made(host) == [{"outcome": "succeeded", "n": 40, "schedules": 40}]


def test_the_console_on_the_worker_says_a_schedules_limit(host):
    from conftest import E2E_CONSOLE_TOKEN

    [id] = hand_over(host, 1)
    page = host.fetch(f"/ops/schedule?name={id}", headers={"authorization": f"Bearer {E2E_CONSOLE_TOKEN}"})
    assert page.status == 200 and "at most 4 runs at once of `api:acme` (`concurrency`)" in page.text


def test_declared_schedules_of_one_action_with_concurrency_1_go_one_a_tick_the_other_owed(host):
    seven = utc("2026-09-09 00:00")
    host.tick(seven - 24 * 60 * MINUTE)  # the deploy: both rows keep the action's key and limit, due a day on
    keyed = host.d1("SELECT name, concurrency_key, concurrency_limit FROM tickwork_schedules "
                    "WHERE name LIKE 'limited_%' ORDER BY name")
    assert [(r["concurrency_key"], r["concurrency_limit"]) for r in keyed] == [("app.domains.e2e.limited", 1)] * 2
    calls = "SELECT schedule, tick_at, outcome FROM tickwork_runs WHERE schedule LIKE 'limited_%' ORDER BY tick_at"
    assert host.tick(seven)["ok"]
    assert [r["outcome"] for r in host.d1(calls)] == ["succeeded"]  # the other owed, not skipped
    host.tick(seven + MINUTE)
    assert [(r["tick_at"], r["outcome"]) for r in host.d1(calls)] == [(seven, "succeeded"),
                                                                       (seven + MINUTE, "succeeded")]
