"""The build's checks of `workflow:` (issue 27): a schedule may name a Workflow binding in place of
`run:`; one the Worker's configuration does not bind is `schedule.workflow_unbound`, at its line;
its `limit:` may then reach 30 days, where any other run's stops at 15 minutes."""

import pytest
from test_build import CENSUS, ONE_DATABASE, codes, project

from tickwork_build.build import build

EXPORTS_BOUND = ONE_DATABASE + """
[[workflows]]
binding = "EXPORTS"
name = "exports"
class_name = "Exports"
script_name = "exports-worker"
"""


def through(items: str = "") -> str:
    return CENSUS.replace("run: queue_chore_census()", "workflow: EXPORTS" + (f"\n        {items}" if items else ""))


def test_a_schedule_naming_a_bound_workflow_writes_it_to_the_manifest_with_no_action(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": through()}, databases=EXPORTS_BOUND)).schedules
    entry = spec.manifest_entry()
    assert (entry["workflow"], "action" in entry, "module" in entry) == ("EXPORTS", False, False)


def test_a_workflow_the_worker_does_not_bind_is_workflow_unbound_at_its_line(tmp_path):
    assert codes(project(tmp_path, {"c.jadpo": through()})) == [("schedule.workflow_unbound", "chore_census", 5)]


def test_run_and_workflow_together_are_item_invalid(tmp_path):
    both = CENSUS.replace("run: queue_chore_census()", "run: queue_chore_census()\n        workflow: EXPORTS")
    assert codes(project(tmp_path, {"c.jadpo": both}, databases=EXPORTS_BOUND)) == [
        ("schedule.item_invalid", "chore_census", 5)]


def test_a_workflow_runs_limit_may_reach_30_days(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": through("limit: 6h")}, databases=EXPORTS_BOUND)).schedules
    assert spec.limit_ms == 6 * 3_600_000


@pytest.mark.parametrize("limit", ["31d", "soon"])
def test_a_workflow_runs_limit_past_30_days_is_limit_invalid(tmp_path, limit):
    assert codes(project(tmp_path, {"c.jadpo": through(f"limit: {limit}")}, databases=EXPORTS_BOUND)) == [
        ("schedule.limit_invalid", "chore_census", 6)]


def test_any_other_runs_limit_keeps_the_15_minute_cap(tmp_path):
    root = project(tmp_path, {"c.jadpo": CENSUS.replace("every: 15m", "every: 15m\n        limit: 6h")},
                   databases=EXPORTS_BOUND)
    assert codes(root) == [("schedule.limit_invalid", "chore_census", 5)]
