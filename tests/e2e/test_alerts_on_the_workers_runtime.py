"""Failures announced on the Workers runtime: the e2e project names `ALERTS` as its alerts queue;
the alert reaches the app's own consumer through Miniflare's real queue, once, and the health
route answers 503 for failing schedules when asked."""

import json
import time
import urllib.parse

from tickwork.times import DAY, MINUTE, utc

NINE = utc("2026-01-05 09:00")


def alerts(host, event, count=1):
    rows = host.wait_for_seen(event, lambda rows: len(rows) >= count, f"{count} {event} alert(s)")
    return [json.loads(row["body"])["alert"] for row in rows]


def test_a_schedule_that_starts_failing_is_announced_once_to_the_alerts_consumer(host):
    answer = host.fetch("/ship", "POST", json.dumps({"at": NINE, "input": {"orders": [], "fail": True}}).encode())
    assert answer.status == 201, answer
    ticked = host.tick(NINE)
    [failed] = [run for run in ticked["runs"] if run["schedule"].startswith("ship_orders@")]
    [alert] = alerts(host, "tickwork.schedule_failing")
    body = alert["body"]
    assert (alert["event"], body["schedule"], body["outcome"], body["code"]) == (
        "tickwork.schedule_failing", failed["schedule"], "failed", "internal_fault")
    assert (body["run"], body["trace"], alert["trace"]) == (failed["id"], failed["trace"], failed["trace"])
    assert host.d1("SELECT state FROM tickwork_deliveries") == [{"state": "succeeded"}]


def test_ticks_that_had_stopped_are_announced_with_the_gap(host):
    assert host.tick(NINE)["ok"]
    host.d1(f"UPDATE tickwork_app SET last_clock = last_clock - {10 * MINUTE}")  # ten minutes on the clock
    assert host.tick(NINE + 10 * MINUTE)["ok"]
    [alert] = alerts(host, "tickwork.ticks_stopped")
    assert alert["body"] == {"from": "2026-01-05T09:00:00.000Z", "to": "2026-01-05T09:10:00.000Z", "gap_s": 600}


def test_the_health_route_answers_503_for_failing_schedules_with_failing_503(host):
    minute = int(time.time() * 1000) // MINUTE * MINUTE - MINUTE  # a minute past: no 10-second marks
    assert host.tick(minute - DAY)["ok"]
    assert host.tick(minute)["ok"]  # always_fails and refuses, due a day on, fail
    plain = host.fetch("/health?threshold=3600000")
    asked = host.fetch("/health?threshold=3600000&failing=503")
    assert (plain.status, asked.status, asked.json()["ok"]) == (200, 503, False)
    assert {"always_fails", "refuses"} <= set(asked.json()["failing"])


def test_a_retry_skipped_while_its_schedule_is_paused_announces_the_due_times_failure(host):
    """On Miniflare's D1, the claim batch keeps the alert of a skip that used up a due time's
    attempts: `yearly_flaky` (`retry: 2 after 1m`) fails its first attempt, is paused from the
    console, and its retry, due a minute on, is skipped `paused`."""
    from test_the_console_on_the_workers_runtime import BEARER, form_token

    due = utc("2027-01-01 03:00")
    assert host.tick(utc("2026-12-31 12:00"))["ok"] and host.tick(due)["ok"]
    body = urllib.parse.urlencode({"name": "yearly_flaky", "csrf": form_token(host, BEARER)}).encode()
    paused = host.fetch("/ops/schedule/pause", "POST", body, {
        "content-type": "application/x-www-form-urlencoded", "origin": host.url, **BEARER})
    assert paused.status == 200, paused.text
    skipped = host.tick(due + MINUTE)
    assert [(r["attempt"], r["code"]) for r in skipped["runs"] if r["schedule"] == "yearly_flaky"] == [(2, "paused")]
    rows = host.wait_for_seen("tickwork.schedule_failing", lambda rows: any(
        json.loads(row["body"])["alert"]["body"]["schedule"] == "yearly_flaky" for row in rows), "yearly_flaky's alert")
    [alert] = [a for a in (json.loads(row["body"])["alert"] for row in rows) if a["body"]["schedule"] == "yearly_flaky"]
    [failed] = host.d1("SELECT id FROM tickwork_runs WHERE schedule = 'yearly_flaky' AND outcome = 'failed'")
    assert (alert["body"]["run"], alert["body"]["code"]) == (failed["id"], "internal_fault")
    assert "yearly_flaky" in host.fetch("/health?threshold=3600000").json()["failing"]
