"""The build's checks of events and queue consumers against wrangler.toml's queues, each problem
with its code, file:line and a mend, and what it writes of them for the Worker."""

import importlib.util
import sys
from types import ModuleType

import pytest
from test_build import ONE_DATABASE, codes, problems, project

from tickwork import EventError, event
from tickwork_build.__main__ import main as build_main
from tickwork_build.build import build

QUEUES = """
[[queues.producers]]
binding = "EVENTS"
queue = "shop-events"

[[queues.consumers]]
queue = "shop-events"
max_retries = 5
"""

EMITS_AND_CONSUMES = """\
from tickwork import call, consumer, event

order_placed = event("order_placed", queue="EVENTS")


@consumer("shop-events")
async def ship():
    print(call.input)
"""


def manifest_of(root):
    spec = importlib.util.spec_from_file_location("manifest", build(root).manifest)
    manifest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(manifest)
    return manifest


def test_events_and_consumers_bound_in_wrangler_toml_are_written_for_the_worker(tmp_path):
    manifest = manifest_of(project(tmp_path, {}, databases=ONE_DATABASE + QUEUES, actions=EMITS_AND_CONSUMES))
    assert manifest.PRODUCERS == {"EVENTS": "shop-events"}
    assert manifest.QUEUES_BOUND is True
    assert [(c["queue"], c["module"], c["action"], c["max_retries"]) for c in manifest.CONSUMERS] == [
        ("shop-events", "app.domains.planning", "ship", 5)]


def test_a_build_reads_its_own_apps_modules_though_the_process_imported_another_app(tmp_path, monkeypatch):
    other = ModuleType("app.domains.planning")  # as importing the example app (src/app) leaves it
    for name in ("app", "app.domains", "app.domains.planning"):
        monkeypatch.setitem(sys.modules, name, other if name == other.__name__ else ModuleType(name))
    manifest = manifest_of(project(tmp_path, {}, databases=ONE_DATABASE + QUEUES, actions=EMITS_AND_CONSUMES))
    assert [c["action"] for c in manifest.CONSUMERS] == ["ship"]
    assert sys.modules["app.domains.planning"] is other


def test_an_event_sent_through_a_queue_not_bound_is_refused_where_it_is_declared(tmp_path):
    found = codes(project(tmp_path, {}, databases=ONE_DATABASE, actions=EMITS_AND_CONSUMES))
    assert ("event.queue_unbound", None, 3) in found


def test_a_consumer_of_a_queue_the_worker_does_not_consume_is_refused(tmp_path):
    found = codes(project(tmp_path, {}, databases=ONE_DATABASE, actions=EMITS_AND_CONSUMES))
    assert ("consumer.queue_unbound", None, 6) in found


def test_a_queue_takes_one_consumer(tmp_path):
    twice = EMITS_AND_CONSUMES + '\n\n@consumer("shop-events")\nasync def bill():\n    pass\n'
    found = codes(project(tmp_path, {}, databases=ONE_DATABASE + QUEUES, actions=twice))
    assert found == [("consumer.duplicate", None, 11)]


def test_a_consumer_is_an_async_action_without_parameters(tmp_path):
    taking = EMITS_AND_CONSUMES.replace("async def ship():", "async def ship(message):")
    found = codes(project(tmp_path, {}, databases=ONE_DATABASE + QUEUES, actions=taking))
    assert found == [("consumer.action_invalid", None, 6)]


def test_events_and_consumers_need_a_d1_store_for_the_outbox_and_handled_records(tmp_path):
    found = codes(project(tmp_path, {}, databases=QUEUES, actions=EMITS_AND_CONSUMES))
    assert [code for code, _, _ in found] == ["schedule.store_required"] * 2


def test_the_retention_is_a_setting_written_for_the_worker(tmp_path):
    manifest = manifest_of(project(tmp_path, {}, tool='retention = "90d"\n'))
    assert manifest.RETENTION_MS == 90 * 86_400_000


def test_a_retention_that_is_not_a_duration_from_a_day_to_a_century_is_refused(tmp_path):
    for wrong in ('"12h"', '"forever"', "30"):
        found = codes(project(tmp_path / wrong.strip('"'), {}, tool=f"retention = {wrong}\n"))
        assert [code for code, _, _ in found] == ["settings.retention_invalid"]


@pytest.mark.parametrize("arguments, code", [
    ('["a"], queue="EVENTS"', "event.name_invalid"),
    ('5, queue="EVENTS"', "event.name_invalid"),
    ('"", queue="EVENTS"', "event.name_invalid"),
    ('"\\ud800", queue="EVENTS"', "event.name_invalid"),
    ('"order_placed", queue=["EVENTS"]', "event.queue_unbound"),
    ('"order_placed", queue=None', "event.queue_unbound"),
])
def test_an_event_whose_name_or_queue_is_not_text_is_its_code_at_its_line(tmp_path, capsys, arguments, code):
    source = EMITS_AND_CONSUMES.replace('"order_placed", queue="EVENTS"', arguments)
    root = project(tmp_path, {}, databases=ONE_DATABASE + QUEUES, actions=source)
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == (code, "src/app/domains/planning/__init__.py", 3)
    assert problem.mend
    assert build_main([str(root)]) == 1
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("arguments, code", [('["a"], queue="EVENTS"', "event.name_invalid"),
                                             ('"a", queue=5', "event.queue_unbound")])
def test_the_worker_refuses_an_event_whose_name_or_queue_is_not_text_with_its_code(arguments, code):
    with pytest.raises(EventError) as refused:
        eval(f"event({arguments})", {"event": event})
    assert refused.value.code == code and refused.value.mend


@pytest.mark.parametrize("decorator, said", [('@consumer(["shop-events"])', "list"), ("@consumer(5)", "int"),
                                             ('@consumer("")', "str"), ("@consumer", "no queue")])
def test_a_consumer_whose_queue_is_not_a_name_is_queue_unbound_at_its_line(tmp_path, capsys, decorator, said):
    source = EMITS_AND_CONSUMES.replace('@consumer("shop-events")', decorator)
    root = project(tmp_path, {}, databases=ONE_DATABASE + QUEUES, actions=source)
    [problem] = problems(root)
    assert (problem.code, problem.file, problem.line) == ("consumer.queue_unbound", "src/app/domains/planning/__init__.py", 6)
    assert said in problem.message and problem.mend
    assert build_main([str(root)]) == 1
    assert "Traceback" not in capsys.readouterr().err
