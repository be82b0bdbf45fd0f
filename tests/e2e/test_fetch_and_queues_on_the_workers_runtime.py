"""The Worker's `fetch` over the host's HTTP port, and its `queue` handler fed by Miniflare's real
queue, end to end.

The e2e copy of the project (see conftest.py) binds the producer `EVENTS` to the queue
`tickwork-e2e`, consumes it (batches of up to 5, 1 s batch timeout, max_retries 2) and its
dead-letter queue, and its queue handler records every delivery in the D1 table `e2e_seen`, then
acks, retries or fails as each message's body {"do": ..., "tag": ...} says. Delivery is
asynchronous: the tests poll what the handler recorded (through the Worker's `GET /seen`) until
a deadline. Each queue test waits until its last message has reached the dead-letter queue, so
no delivery of one test runs into the next.
"""

import json
import uuid


def _tag():
    return uuid.uuid4().hex


def _story(rows, message_id):
    """(queue, attempts) of each delivery of one message, in order."""
    return [(row["queue"], row["attempts"]) for row in rows if row["message_id"] == message_id]


def _ids(rows, action):
    return list(dict.fromkeys(row["message_id"] for row in rows if row["action"] == action))


def _dead(host, count):
    return lambda rows: sum(row["queue"] == host.dead_letters for row in rows) >= count


def _every_attempt(host):
    return list(range(1, host.max_retries + 2))


def _dead_lettered(host):
    """Delivered max_retries + 1 times, then once from the dead-letter queue."""
    return [(host.queue, attempt) for attempt in _every_attempt(host)] + [(host.dead_letters, 1)]


# --- fetch ---


def test_fetch_answers_over_the_hosts_port_with_the_workers_status_body_and_headers(host):
    answer = host.fetch("/hello?name=Ada")

    assert answer.status == 200
    assert answer.text == "hello, Ada"
    assert answer.headers["x-e2e"] == "hello"
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"


def test_fetch_gets_the_requests_method_body_query_and_headers(host):
    answer = host.fetch("/echo?a=1&b=two", "POST", "some text, ünïcode".encode(), {"x-e2e-in": "yes"})

    assert answer.status == 201
    assert answer.headers["content-type"] == "application/json"
    assert answer.json() == {
        "method": "POST", "text": "some text, ünïcode", "header": "yes", "query": {"a": "1", "b": "two"},
    }


def test_fetch_passes_the_workers_own_404_through(host):
    answer = host.fetch("/no/such/page")

    assert (answer.status, answer.text) == (404, "no such page")


def test_a_fetch_that_raises_answers_500_and_prints_the_python_traceback(host):
    answer = host.fetch("/fail")

    assert answer.status == 500
    assert "RuntimeError: the e2e fetch fails on purpose" in answer.text
    printed = host.printed("GET /fail failed:", 'File "/session/metadata/entry.py"')
    assert "GET /fail failed:" in printed
    assert 'File "/session/metadata/entry.py"' in printed


# --- queues ---


def test_a_message_the_worker_sends_reaches_the_queue_handler_and_is_acked_once(host):
    tag = _tag()

    # A retried neighbour in the same batch comes back twice and then goes to the dead-letter
    # queue: once it is there, any redelivery of the acked messages would have been seen.
    host.send({"do": "ack", "tag": tag}, {"do": "nothing", "tag": tag}, {"do": "retry", "tag": tag})
    rows = host.wait_for_seen(tag, _dead(host, 1), "the retried message in the dead-letter queue")

    [acked], [left], [retried] = _ids(rows, "ack"), _ids(rows, "nothing"), _ids(rows, "retry")
    assert _story(rows, acked) == [(host.queue, 1)], "acked with message.ack(): delivered once"
    assert _story(rows, left) == [(host.queue, 1)], "the handler returned: acked with the batch"
    assert _story(rows, retried) == _dead_lettered(host)
    first = [row for row in rows if row["message_id"] == acked][0]
    assert json.loads(first["body"]) == {"do": "ack", "tag": tag}, "the body arrives as a dict"


def test_a_message_the_handler_retries_comes_back_until_max_retries_then_goes_to_the_dead_letters(host):
    tag = _tag()

    host.send({"do": "retry", "tag": tag})  # one `send`, not a `sendBatch`
    rows = host.wait_for_seen(tag, _dead(host, 1), "the message in the dead-letter queue")

    [retried] = _ids(rows, "retry")
    assert _story(rows, retried) == _dead_lettered(host), (
        f"delivered with attempts {_every_attempt(host)} (max_retries {host.max_retries}), then dead-lettered"
    )


def test_a_batch_whose_handler_raises_is_redelivered_but_for_the_messages_acked_one_by_one(host):
    tag = _tag()
    before = len(host.output)

    host.send({"do": "ack", "tag": tag}, {"do": "raise", "tag": tag}, {"do": "nothing", "tag": tag})
    rows = host.wait_for_seen(tag, _dead(host, 2), "both unacked messages in the dead-letter queue")

    [acked], [raising], [left] = _ids(rows, "ack"), _ids(rows, "raise"), _ids(rows, "nothing")
    assert _story(rows, acked) == [(host.queue, 1)], "acked one by one before the raise: kept acked"
    assert _story(rows, raising) == _dead_lettered(host)
    assert _story(rows, left) == _dead_lettered(host), "not acked: redelivered with the batch"
    batch = f"queue {host.queue}: 3 messages, 1 acked, 2 retried, the handler failed"
    printed = host.printed("RuntimeError: the e2e batch fails on purpose", batch, since=before)
    assert "RuntimeError: the e2e batch fails on purpose" in printed
    assert f"queue {host.queue}: 3 messages, 1 acked, 2 retried, the handler failed" in printed
