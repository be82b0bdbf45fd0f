"""Traces on the Workers runtime (schedules document, "How a schedule runs": each run "in a new
trace"): the run's trace is on its record and in the host's line for it, and what it emits
carries it through Miniflare's real queue to the consumer, whose handled record continues it."""

import json
import re

from test_the_outbox_on_the_workers_runtime import NINE, deliveries, until


def test_a_runs_trace_reaches_the_consumer_of_what_it_emitted(host):
    answer = host.fetch("/ship", "POST", json.dumps({"at": NINE, "input": {"orders": [{"tag": "traced", "n": 1}]}}).encode())
    assert answer.status == 201, answer
    ticked = host.tick(NINE)
    [shipping] = [run for run in ticked["runs"] if run["schedule"].startswith("ship_orders@")]
    trace = shipping["trace"]
    assert re.fullmatch(r"[0-9a-f]{32}", trace)
    assert shipping["events"] == {"shipped": 1}
    until(lambda: [d for d in deliveries(host) if d["state"] == "succeeded"], "the delivery to succeed")
    assert host.d1("SELECT trace FROM tickwork_runs WHERE id = '%s'" % shipping["id"]) == [{"trace": trace}]
    assert host.d1("SELECT trace FROM tickwork_events") == [{"trace": trace}]
    assert host.d1("SELECT trace FROM tickwork_handled") == [{"trace": trace}]
