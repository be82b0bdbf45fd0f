"""The outbox on the Workers runtime with Miniflare's real queues: what a run emits reaches the
app's consumer once and is handled; a message delivered twice is handled once; a consumer that
raises is retried and its delivery ends `failed` in D1; what a killed Worker committed but never
sent goes out at the next tick; a run that fails emits nothing."""

import json
import time

from conftest import E2E_OUTBOX_MAX_RETRIES

from tickwork.times import utc

NINE = utc("2026-01-05 09:00")


def ship(host, orders, fail=False):
    answer = host.fetch("/ship", "POST", json.dumps({"at": NINE, "input": {"orders": orders, "fail": fail}}).encode())
    assert answer.status == 201, answer
    ticked = host.tick(NINE)
    assert ticked["ok"], ticked


def deliveries(host):
    return host.d1("SELECT state, attempts, last_error FROM tickwork_deliveries ORDER BY updated_at")


def shipped(host, tag):
    return host.d1(f"SELECT n FROM e2e_shipped WHERE tag = '{tag}'")


# Each check is a `wrangler d1 execute` of its own, seconds apiece on a loaded machine, and the
# queue's consumer waits its batch timeout: the deadline is generous, the wait ends on the check.
PATIENCE = 240


def until(check, what, host=None, timeout=PATIENCE):
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            output = "".join(host.output[-40:]) if host is not None else ""
            assert found, f"after {timeout} s, still waiting for {what}\nlast lines of the host:\n{output}"
            return found
        time.sleep(0.2)


def test_what_a_run_emits_reaches_the_consumer_once_and_is_handled(host):
    ship(host, [{"tag": "once", "n": 1}])
    until(lambda: [d for d in deliveries(host) if d["state"] == "succeeded"], "the delivery to succeed", host)
    assert shipped(host, "once") == [{"n": 1}]  # committed in the batch that made it succeeded
    assert host.d1("SELECT COUNT(*) AS n FROM tickwork_handled") == [{"n": 1}]


def test_a_message_delivered_twice_is_handled_once(host):
    ship(host, [{"tag": "twice", "n": 2}])
    until(lambda: shipped(host, "twice"), "the first delivery")
    [row] = host.d1("SELECT d.id AS delivery, e.body FROM tickwork_deliveries d JOIN tickwork_events e ON e.id = d.event")
    again = {"tickwork": 1, "delivery": row["delivery"], "event": "shipped", "body": json.loads(row["body"])}
    since = len(host.output)
    assert host.fetch("/send-outbox", "POST", json.dumps([again]).encode()).status == 202
    acked = "queue tickwork-e2e-outbox: 1 message, 1 acked"
    assert acked in host.printed(acked, since=since, timeout=30)  # the repeat, acked without a call
    assert shipped(host, "twice") == [{"n": 2}]


def test_a_consumer_that_raises_is_retried_and_its_delivery_ends_failed(host):
    ship(host, [{"tag": "broken", "raise": True}])
    [failed] = until(lambda: [d for d in deliveries(host) if d["state"] == "failed"], "the delivery to fail")
    assert failed["last_error"] == "RuntimeError: the e2e consumer fails on purpose for broken"
    assert shipped(host, "broken") == []  # what it wrote went back with its failure
    assert E2E_OUTBOX_MAX_RETRIES == 1


def test_a_run_that_fails_emits_nothing(host):
    ship(host, [{"tag": "never"}], fail=True)
    assert host.d1("SELECT COUNT(*) AS n FROM tickwork_events WHERE name = 'shipped'") == [{"n": 0}]


def test_what_a_killed_worker_committed_but_never_sent_goes_out_at_the_next_tick(host):
    body = json.dumps({"tag": "orphan", "n": 9})
    host.d1(
        "INSERT INTO tickwork_events (id, name, body, emitted_at) "
        f"VALUES ('e-orphan', 'shipped', '{body}', {NINE});"
        "INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, lease_run, lease_until, updated_at) "
        f"VALUES ('d-orphan', 'e-orphan', 'OUTBOX', 'running', 1, 'killed', {NINE + 60_000}, {NINE})"
    )
    assert host.tick(NINE + 120_000)["ok"]
    until(lambda: shipped(host, "orphan"), "the orphan to be consumed")
    assert shipped(host, "orphan") == [{"n": 9}]
