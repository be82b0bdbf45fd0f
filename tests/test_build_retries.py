"""The build's checks of `retry:` and `limit:` (issue 17): each opt-in, each problem with its
code, the schedule's name and line."""

import pytest
from test_build import ACTIONS, CENSUS, ONE_DATABASE, codes, project

from tickwork_build.build import build

QUEUE_BOUND = ONE_DATABASE + """
[[queues.producers]]
binding = "REMINDERS"
queue = "reminders"
"""


def with_items(items: str) -> str:
    return CENSUS.replace("every: 15m", f"every: 15m\n        {items}")


def test_retry_and_limit_are_written_to_the_manifest(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": with_items("retry: 3 after 1m  limit: 2m")})).schedules
    assert (spec.retry_attempts, spec.retry_pause_ms, spec.limit_ms) == (3, 60_000, 120_000)
    assert {"retry_attempts", "retry_pause_ms", "limit_ms"} <= spec.manifest_entry().keys()


def test_a_schedule_without_retry_or_limit_writes_neither(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": CENSUS})).schedules
    assert not {"retry_attempts", "retry_pause_ms", "limit_ms"} & spec.manifest_entry().keys()


@pytest.mark.parametrize("retry", ["3", "after 1m", "three after 1m", "3 after soon", "0 after 1m", "11 after 1m",
                                   "10 after 36500d"])
def test_a_retry_that_is_not_attempts_after_a_pause_is_retry_invalid(tmp_path, retry):
    assert codes(project(tmp_path, {"c.jadpo": with_items(f"retry: {retry}")})) == [
        ("schedule.retry_invalid", "chore_census", 5)]


def test_pauses_under_a_minute_are_target_unsupported_without_queues_bound(tmp_path):
    assert codes(project(tmp_path, {"c.jadpo": with_items("retry: 3 after 30s")})) == [
        ("deployable.target_unsupported", "chore_census", 5)]


def test_pauses_down_to_ten_seconds_build_with_queues_bound(tmp_path):
    root = project(tmp_path, {"c.jadpo": with_items("retry: 3 after 10s")}, databases=QUEUE_BOUND)
    [spec] = build(root).schedules
    assert spec.retry_pause_ms == 10_000


def test_pauses_under_ten_seconds_are_target_unsupported_even_with_queues_bound(tmp_path):
    root = project(tmp_path, {"c.jadpo": with_items("retry: 3 after 5s")}, databases=QUEUE_BOUND)
    assert codes(root) == [("deployable.target_unsupported", "chore_census", 5)]


@pytest.mark.parametrize("limit", ["16m", "soon", "0s", "1h"])
def test_a_limit_that_is_not_a_duration_up_to_15_minutes_is_limit_invalid(tmp_path, limit):
    assert codes(project(tmp_path, {"c.jadpo": with_items(f"limit: {limit}")})) == [
        ("schedule.limit_invalid", "chore_census", 5)]


def test_calendars_and_pulses_take_retry_and_limit_from_decorators(tmp_path):
    decorated = ACTIONS + (
        '\nfrom tickwork import calendar, pulse\n'
        '@calendar("0 9 1 * *", retry="3 after 1h", limit="10m")\nasync def monthly_statement():\n    pass\n'
        '@pulse(cycle="1h", retry="1 after 5m")\nasync def sweep():\n    pass\n')
    specs = {s.name: s for s in build(project(tmp_path, {}, actions=decorated)).schedules}
    assert (specs["monthly_statement"].retry_attempts, specs["monthly_statement"].retry_pause_ms,
            specs["monthly_statement"].limit_ms) == (3, 3_600_000, 600_000)
    assert (specs["sweep"].retry_attempts, specs["sweep"].limit_ms) == (1, None)


# Issue 25, "Retries that know when to stop": the rule's ceiling, jitter and codes never retried.

WHOLE = "retry: 8 after 1m up to 30m jitter 30s except invalid_input, not_found"


def test_a_whole_retry_rule_is_written_to_the_manifest_as_the_runtime_reads_it(tmp_path):
    from tickwork.kinds.forms import retry_of_entry
    from tickwork.model import Retry

    [spec] = build(project(tmp_path, {"c.jadpo": with_items(WHOLE)})).schedules
    assert retry_of_entry(spec.manifest_entry()) == Retry(8, 60_000, 1_800_000, 30_000, ("invalid_input", "not_found"))


def test_decorators_take_the_whole_retry_rule(tmp_path):
    from tickwork.kinds.forms import retry_of_entry

    decorated = ACTIONS + (
        '\nfrom tickwork import calendar, pulse\n'
        '@calendar("0 9 1 * *", retry="3 after 1h up to 2h except invalid_input")\nasync def monthly_statement():\n'
        '    pass\n'
        '@pulse(cycle="1h", retry="2 after 5m jitter 1m")\nasync def sweep():\n    pass\n')
    built = build(project(tmp_path, {}, actions=decorated)).schedules
    specs = {s.name: retry_of_entry(s.manifest_entry()) for s in built}
    assert (specs["monthly_statement"].ceiling, specs["monthly_statement"].never) == (7_200_000, ("invalid_input",))
    assert specs["sweep"].jitter == 60_000


@pytest.mark.parametrize("retry", ["3 after 1m up to 30s", "3 after 1m up to soon", "3 after 1m jitter often",
                                   "3 after 1m except", "3 after 1m except lease_expired",
                                   "3 after 1m jitter 30s up to 5m"])
def test_a_retry_rule_wrong_in_its_ceiling_jitter_or_except_is_retry_invalid(tmp_path, retry):
    assert codes(project(tmp_path, {"c.jadpo": with_items(f"retry: {retry}")})) == [
        ("schedule.retry_invalid", "chore_census", 5)]
