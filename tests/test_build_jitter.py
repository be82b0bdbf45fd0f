"""The build's checks of `jitter:` (issue 25): `every:` schedules and calendars take it, in .jadpo
and from the decorators; a bad one is `schedule.jitter_invalid` at its line; the manifest entry
carries it as the runtime reads it."""

import pytest
from test_build import ACTIONS, CENSUS, codes, project

from tickwork_build.build import build


def with_items(items: str) -> str:
    return CENSUS.replace("every: 15m", f"every: 15m\n        {items}")


def test_a_jitter_is_written_to_the_manifest_and_a_schedule_without_one_writes_none(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": with_items("jitter: 5m")})).schedules
    assert spec.jitter_ms == 300_000 and spec.manifest_entry()["jitter_ms"] == 300_000
    [plain] = build(project(tmp_path / "plain", {"c.jadpo": CENSUS})).schedules
    assert "jitter_ms" not in plain.manifest_entry()


@pytest.mark.parametrize("jitter", ["soon", "0s", "1500ms", "15m", "1h"])
def test_a_jitter_that_is_no_duration_or_not_shorter_than_the_interval_is_jitter_invalid(tmp_path, jitter):
    assert codes(project(tmp_path, {"c.jadpo": with_items(f"jitter: {jitter}")})) == [
        ("schedule.jitter_invalid", "chore_census", 5)]


def test_a_calendars_jitter_must_be_shorter_than_its_closest_occurrences(tmp_path):
    decorated = ACTIONS + (
        '\nfrom tickwork import calendar\n'
        '@calendar("0 9,10 * * 1-5", zone="Europe/Berlin", jitter="1h")\nasync def twice():\n    pass\n')
    assert [code for code, *_ in codes(project(tmp_path, {}, actions=decorated))] == ["schedule.jitter_invalid"]


def test_the_decorators_take_jitter_and_a_pulse_holds_none(tmp_path):
    decorated = ACTIONS + (
        '\nfrom tickwork import calendar, schedule\n'
        '@calendar("0 9 * * 1", jitter="5m")\nasync def weekly():\n    pass\n'
        '@schedule(every="1h", jitter="90s")\nasync def hourly():\n    pass\n')
    specs = {s.name: s for s in build(project(tmp_path, {}, actions=decorated)).schedules}
    assert (specs["weekly"].jitter_ms, specs["hourly"].jitter_ms) == (300_000, 90_000)
    pulsed = CENSUS.replace("schedule chore_census", "pulse chore_census").replace("every: 15m", "cycle: 1h\n"
                                                                                   "        jitter: 5m")
    assert [code for code, *_ in codes(project(tmp_path / "pulse", {"c.jadpo": pulsed}))] == ["schedule.item_invalid"]
