"""The build's check of `[tool.tickwork] alerts`: a producer binding of wrangler.toml, written
for the Worker; anything else is `settings.alerts_invalid` at its line."""

from test_build import ONE_DATABASE, codes, project
from test_build_queues import manifest_of

ALERTS_QUEUE = """
[[queues.producers]]
binding = "ALERTS"
queue = "shop-alerts"
"""


def test_alerts_naming_a_producer_binding_are_written_for_the_worker(tmp_path):
    root = project(tmp_path, {}, databases=ONE_DATABASE + ALERTS_QUEUE, tool='alerts = "ALERTS"\n')
    manifest = manifest_of(root)
    assert (manifest.ALERTS, manifest.PRODUCERS) == ("ALERTS", {"ALERTS": "shop-alerts"})


def test_without_alerts_the_worker_sends_none(tmp_path):
    assert manifest_of(project(tmp_path, {})).ALERTS is None


def test_alerts_naming_a_binding_wrangler_toml_does_not_produce_to_is_refused_at_its_line(tmp_path):
    root = project(tmp_path, {}, tool='alerts = "PAGER"\n')
    assert ("settings.alerts_invalid", None, 3) in codes(root)


def test_alerts_that_are_not_a_name_are_refused(tmp_path):
    root = project(tmp_path, {}, databases=ONE_DATABASE + ALERTS_QUEUE, tool="alerts = true\n")
    assert ("settings.alerts_invalid", None, 3) in codes(root)
