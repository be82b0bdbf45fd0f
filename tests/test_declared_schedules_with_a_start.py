"""Issue 25, "A start and a count", its declared half: `starts:` in a .jadpo declaration and
`starts=` on the decorators, an ISO 8601 moment with its offset; the build refuses any other
value with `schedule.starts_invalid` at its line, and the tick makes no call before it: a new
schedule's first due time is its first moment at or after the start, and a start declared on a
schedule already kept moves its row there at the deploy."""

import pytest
from helpers import calendar, every, runs, state, ticks
from test_build import ACTIONS, CENSUS, codes, project

from tickwork import Schedule
from tickwork.tick.declared import DeclaredSet
from tickwork.times import HOUR, MINUTE, utc
from tickwork_build.build import build

STARTS = "2027-01-04T09:00:00Z"
START = utc("2027-01-04 09:00")
BEFORE = utc("2027-01-01 12:00")


def with_items(items: str) -> str:
    return CENSUS.replace("every: 15m", f"every: 15m\n        {items}")


def test_a_start_is_written_to_the_manifest_as_epoch_ms(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": with_items(f"starts: {STARTS}")})).schedules
    assert spec.starts_ms == START and spec.manifest_entry()["starts_ms"] == START


def test_a_start_with_an_offset_names_that_instant(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": with_items("starts: 2027-01-04T10:00:00+01:00")})).schedules
    assert spec.starts_ms == START


def test_a_schedule_without_a_start_writes_none(tmp_path):
    [spec] = build(project(tmp_path, {"c.jadpo": CENSUS})).schedules
    assert "starts_ms" not in spec.manifest_entry()


@pytest.mark.parametrize("starts", ["tomorrow", "2027-01-04T09:00:00", "2027-01-04", "2027-13-01T00:00:00Z"])
def test_a_start_that_is_no_moment_with_its_offset_is_starts_invalid_at_its_line(tmp_path, starts):
    assert codes(project(tmp_path, {"c.jadpo": with_items(f"starts: {starts}")})) == [
        ("schedule.starts_invalid", "chore_census", 5)]


def test_calendars_and_pulses_take_a_start_from_decorators(tmp_path):
    decorated = ACTIONS + (
        '\nfrom tickwork import calendar, pulse\n'
        f'@calendar("0 9 1 * *", starts="{STARTS}")\nasync def monthly_statement():\n    pass\n'
        '@pulse(cycle="1h", starts="soon")\nasync def sweep():\n    pass\n')
    assert codes(project(tmp_path, {}, actions=decorated)) == [("schedule.starts_invalid", "sweep", 14)]
    fixed = decorated.replace('starts="soon"', f'starts="{STARTS}"')
    specs = {s.name: s for s in build(project(tmp_path / "fixed", {}, actions=fixed)).schedules}
    assert specs["monthly_statement"].starts_ms == specs["sweep"].starts_ms == START


def with_start(schedule: Schedule, starts=START) -> Schedule:
    from dataclasses import replace

    return replace(schedule, starts=starts)


def test_a_new_every_schedule_with_a_start_makes_its_first_call_at_the_start(db):
    census = with_start(every(60))
    ticks(db, [census], BEFORE, BEFORE + HOUR)
    assert state(db).due_at == START
    ticks(db, [census], START - MINUTE, START)
    assert [r["due_at"] for r in runs(db)] == [START]


def test_a_new_calendar_with_a_start_makes_its_first_call_at_its_first_moment_at_or_after_it(db):
    weekly = with_start(calendar("30 9 * * *"))
    ticks(db, [weekly], BEFORE)
    assert state(db, "weekly").due_at == START + 30 * MINUTE


def test_a_start_declared_on_a_schedule_already_kept_moves_its_row_there_at_the_deploy(db):
    census = every(60)
    ticks(db, [census], BEFORE)
    assert state(db).due_at == BEFORE + HOUR
    ticks(db, [with_start(census)], BEFORE + MINUTE)
    assert state(db).due_at == START


def test_a_start_already_past_changes_nothing(db):
    census = every(60)
    ticks(db, [census], START)
    ticks(db, [with_start(census)], START + MINUTE)
    assert state(db).due_at == START + HOUR


def test_a_declared_set_without_starts_keeps_its_fingerprint_and_one_with_a_start_has_another():
    census = every(60)
    assert DeclaredSet([census]).fingerprint == DeclaredSet([with_start(census, None)]).fingerprint
    assert DeclaredSet([with_start(census)]).fingerprint != DeclaredSet([census]).fingerprint


def test_why_says_a_declared_start_in_its_rule(app):
    app.tick([with_start(every(60))], BEFORE)
    app.manifest({"kind": "schedule", "name": "census", "source": "src/app/x.py:3", "every_ms": HOUR,
                  "starts_ms": START})
    _, answer, _ = app.run("why", "census", now=BEFORE + MINUTE)
    assert answer["rule"].endswith("; no call before 2027-01-04 09:00 UTC (`starts`)")
    assert answer["next_due_why"].startswith("2027-01-04 09:00 UTC")


def test_the_console_says_a_declared_start_in_its_rule(db):
    from console_fixtures import APP, PREFIX, ask
    from test_replaces_and_counts_in_words import shown

    from tickwork.app import App

    census = with_start(every(60))
    ticks(db, [census], BEFORE)
    declared = App("DB", [census], console=APP.console)
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name=census", now=BEFORE + MINUTE, app=declared))
    assert "no call before 2027-01-04 09:00 UTC (`starts`)" in page


def test_a_start_removed_releases_the_row_waiting_for_it(db):
    census = every(60)
    ticks(db, [with_start(census)], BEFORE)
    assert state(db).due_at == START
    ticks(db, [census], BEFORE + MINUTE)  # the deploy without `starts:`: due as a new schedule would be
    assert state(db).due_at == census.timing.first_due_from(BEFORE + MINUTE, None) < START
    ticks(db, [census], BEFORE + 2 * MINUTE, BEFORE + 2 * HOUR)
    assert runs(db) and runs(db)[0]["due_at"] < START


def test_a_start_moved_earlier_moves_the_row_waiting_for_it_there(db):
    weekly = with_start(calendar("30 9 * * *"))
    ticks(db, [weekly], BEFORE)
    assert state(db, "weekly").due_at == START + 30 * MINUTE
    earlier = utc("2027-01-02 09:00")
    ticks(db, [with_start(weekly, earlier)], BEFORE + MINUTE)
    assert state(db, "weekly").due_at == earlier + 30 * MINUTE


def test_a_start_removed_after_it_passed_changes_nothing(db):
    census = every(60)
    ticks(db, [with_start(census)], BEFORE)
    ticks(db, [with_start(census)], START, START + MINUTE)
    ticks(db, [census], START + 2 * MINUTE)
    assert state(db).due_at == START + HOUR
