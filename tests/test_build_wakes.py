"""The build's check of `[tool.tickwork] wakes`: a producer binding whose queue the Worker
consumes and no `@consumer` reads, written for the Worker; anything else is
`settings.wakes_invalid` at its line."""

from test_build import ONE_DATABASE, codes, project
from test_build_queues import manifest_of

PRODUCED = """
[[queues.producers]]
binding = "WAKES"
queue = "tickwork-wakes"
"""
CONSUMED = """
[[queues.consumers]]
queue = "tickwork-wakes"
"""


def test_wakes_naming_a_producer_binding_of_a_queue_the_worker_consumes_are_written_for_it(tmp_path):
    root = project(tmp_path, {}, databases=ONE_DATABASE + PRODUCED + CONSUMED, tool='wakes = "WAKES"\n')
    manifest = manifest_of(root)
    assert (manifest.WAKES, manifest.PRODUCERS) == ("WAKES", {"WAKES": "tickwork-wakes"})


def test_without_wakes_the_worker_ticks_at_the_marks(tmp_path):
    assert manifest_of(project(tmp_path, {})).WAKES is None


def test_wakes_naming_no_producer_binding_are_refused_at_their_line(tmp_path):
    root = project(tmp_path, {}, databases=ONE_DATABASE + CONSUMED, tool='wakes = "WAKES"\n')
    assert ("settings.wakes_invalid", None, 3) in codes(root)


def test_wakes_to_a_queue_the_worker_does_not_consume_are_refused(tmp_path):
    root = project(tmp_path, {}, databases=ONE_DATABASE + PRODUCED, tool='wakes = "WAKES"\n')
    assert ("settings.wakes_invalid", None, 3) in codes(root)


def test_wakes_that_are_not_a_name_are_refused(tmp_path):
    root = project(tmp_path, {}, databases=ONE_DATABASE + PRODUCED + CONSUMED, tool="wakes = 7\n")
    assert ("settings.wakes_invalid", None, 3) in codes(root)


def test_wakes_to_a_queue_a_declared_consumer_reads_are_refused(tmp_path):
    consumer = 'from tickwork import consumer\n\n\n@consumer("tickwork-wakes")\nasync def on_wake():\n    pass\n'
    root = project(tmp_path, {}, databases=ONE_DATABASE + PRODUCED + CONSUMED, tool='wakes = "WAKES"\n',
                   actions=consumer)
    assert ("settings.wakes_invalid", None, 3) in codes(root)
