"""Issue 25, "A grace for every kind": `overdue:` on `every` schedules and pulses as on calendars.
A call later than its grace, counted from its grid time (an `every:`) or the start of its share (a
pulse), is skipped `overdue`, and the occurrences it covers are counted missed, by the one rule
the calendars have (tick/plan.py)."""

import json

import pytest
from helpers import Calls, run, runs, state, ticks
from test_build import ACTIONS, codes, project
from test_schedules_handed_over import handed, send_statement

from tickwork.kinds.every import Every
from tickwork.kinds.forms import timing_of
from tickwork.kinds.pulse import Pulse
from tickwork.model import Code, Outcome, Schedule
from tickwork.operating import words
from tickwork_build.build import build
from test_missed_occurrences_are_counted import covers
from tickwork.times import HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")


def census(overdue=None):
    return Schedule("census", Every(15 * MINUTE, overdue=overdue), Calls())


def sweep(overdue=None):
    return Schedule("sweep", Pulse(HOUR, 1, overdue=overdue), Calls())


def test_an_every_run_later_than_its_grace_is_skipped_overdue_and_its_slots_counted_missed(db):
    ticks(db, [census(overdue=5 * MINUTE)], NINE, NINE + 15 * MINUTE + 6 * MINUTE)
    [skip] = runs(db)
    assert (skip["outcome"], skip["code"]) == (Outcome.SKIPPED, Code.OVERDUE)
    assert "360000 ms late; overdue allows 300000 ms" in skip["detail"]
    assert state(db).due_at == NINE + 30 * MINUTE  # the grid goes on


def test_an_every_overdue_skip_after_an_outage_records_the_slots_it_covers(db):
    ticks(db, [census(overdue=5 * MINUTE)], NINE, NINE + 75 * MINUTE + 6 * MINUTE)
    [skip] = runs(db)
    assert skip["code"] == Code.OVERDUE
    assert covers(skip) == (5, NINE + 15 * MINUTE, NINE + 75 * MINUTE, 0)


@pytest.mark.parametrize("late", [0, 4 * MINUTE, 5 * MINUTE])
def test_an_every_run_within_its_grace_runs(db, late):
    ticks(db, [census(overdue=5 * MINUTE)], NINE, NINE + 15 * MINUTE + late)
    [ran] = runs(db)
    assert ran["outcome"] == Outcome.SUCCEEDED


def test_after_an_outage_an_every_within_its_grace_of_its_latest_grid_time_runs(db):
    """Down from 09:00 to 10:17: the grid times missed collapse into 10:15, two minutes late."""
    ticks(db, [census(overdue=5 * MINUTE)], NINE, NINE + 77 * MINUTE)
    [ran] = runs(db)
    assert ran["outcome"] == Outcome.SUCCEEDED


def test_an_every_without_a_grace_runs_however_late(db):
    ticks(db, [census()], NINE, NINE + 10 * HOUR)
    [ran] = runs(db)
    assert ran["outcome"] == Outcome.SUCCEEDED


def test_a_pulse_call_later_than_its_grace_after_its_share_began_is_skipped_overdue(db):
    ticks(db, [sweep(overdue=10 * MINUTE)], NINE + MINUTE, NINE + 3 * HOUR + 20 * MINUTE)
    [skip] = runs(db, "sweep")
    assert (skip["outcome"], skip["code"]) == (Outcome.SKIPPED, Code.OVERDUE)
    assert covers(skip) == (3, NINE + HOUR, NINE + 3 * HOUR, 0)


def test_a_pulse_call_within_its_grace_runs(db):
    ticks(db, [sweep(overdue=10 * MINUTE)], NINE + MINUTE, NINE + HOUR + 9 * MINUTE)
    [ran] = runs(db, "sweep")
    assert ran["outcome"] == Outcome.SUCCEEDED


def test_after_an_outage_a_pulse_call_within_its_grace_of_the_share_it_calls_runs(db):
    """Down from 09:01 to 12:05: the share called began at 12:00, five minutes before; the
    shares missed are not made up, and do not make the call late."""
    ticks(db, [sweep(overdue=10 * MINUTE)], NINE + MINUTE, NINE + 3 * HOUR + 5 * MINUTE)
    [ran] = runs(db, "sweep")
    assert ran["outcome"] == Outcome.SUCCEEDED


GRACED = """\
    schedule census {
        every: 15m
        overdue: 5m
        run: queue_chore_census()
    }
    pulse sweep {
        cycle: 1h
        overdue: 600
        run: queue_chore_census()
    }
"""


def test_a_jadpo_every_and_pulse_take_overdue_into_the_manifest_and_the_timing(tmp_path):
    by_name = {s.name: s.manifest_entry() for s in build(project(tmp_path, {"g.jadpo": GRACED})).schedules}
    assert by_name["census"]["overdue_ms"] == 5 * MINUTE and by_name["sweep"]["overdue_ms"] == 10 * MINUTE
    assert timing_of(by_name["census"]) == Every(15 * MINUTE, overdue=5 * MINUTE)
    assert timing_of(by_name["sweep"]) == Pulse(HOUR, 1, overdue=10 * MINUTE)


def test_an_entry_without_overdue_reads_as_before():
    assert timing_of({"kind": "schedule", "every_ms": 15 * MINUTE}).overdue is None
    assert timing_of({"kind": "pulse", "cycle_ms": HOUR, "intervals": 1}).overdue is None


@pytest.mark.parametrize("value", ["soon", "0", "-5m"])
def test_a_bad_overdue_on_every_and_pulse_fails_the_build_at_its_line(tmp_path, value):
    text = GRACED.replace("overdue: 5m", f"overdue: {value}").replace("overdue: 600", f"overdue: {value}")
    assert codes(project(tmp_path, {"g.jadpo": text})) == [
        ("schedule.overdue_invalid", "census", 3), ("schedule.overdue_invalid", "sweep", 8)]


def test_the_decorators_take_overdue_as_jadpo_does(tmp_path):
    python = ACTIONS + (
        "\nfrom tickwork import pulse, schedule\n"
        'schedule(every="15m", overdue="5m", name="census")(queue_chore_census)\n'
        'pulse(cycle="1h", overdue=600, name="sweep")(queue_chore_census)\n'
    )
    from_python = build(project(tmp_path / "b", {}, actions=python)).schedules
    from_jadpo = build(project(tmp_path / "a", {"g.jadpo": GRACED})).schedules

    def model(specs):
        return sorted((s.model_dump(exclude={"source"}) for s in specs), key=lambda d: d["name"])
    assert model(from_python) == model(from_jadpo)


def test_an_every_handed_over_with_overdue_is_skipped_when_later(db):
    id = run(handed(db, NINE).every(send_statement, None, "15m", overdue=5 * MINUTE))
    ticks(db, [], NINE + 15 * MINUTE + 6 * MINUTE)
    [skip] = runs(db, id)
    assert (skip["outcome"], skip["code"]) == (Outcome.SKIPPED, Code.OVERDUE)


def test_every_many_and_hand_over_take_overdue_too(db):
    bulk = run(handed(db, NINE).every_many(send_statement, [1, 2], "15m", overdue=5 * MINUTE))
    mixed = run(handed(db, NINE).hand_over([{"action": send_statement, "input": 3, "every": "15m",
                                             "overdue": 5 * MINUTE}]))
    ticks(db, [], NINE + 15 * MINUTE + 6 * MINUTE)
    for id in bulk.ids + mixed.ids:
        assert [r["code"] for r in runs(db, id)] == [Code.OVERDUE]
        assert json.loads(state(db, id).timing)["overdue_ms"] == 5 * MINUTE


def test_an_every_handed_over_without_overdue_keeps_its_id_from_before(db):
    """Ids come from content: no `overdue_ms` is written unless given, so a hand-over repeated
    after this change finds the schedule it made before."""
    id = run(handed(db, NINE).every(send_statement, None, "15m"))
    assert "overdue_ms" not in state(db, id).timing


def test_a_bad_overdue_handed_over_is_refused_with_its_code(db):
    from tickwork import ScheduleError

    with pytest.raises(ScheduleError) as refused:
        run(handed(db, NINE).every(send_statement, None, "15m", overdue=-1))
    assert refused.value.code == "schedule.overdue_invalid"


def test_the_grace_of_an_every_and_a_pulse_is_said_in_words():
    assert words.timing("every 900000", 5 * MINUTE) == "every 15 minutes, overdue after 5 minutes"
    said = words.rule("pulse 3600000/1", {}, 10 * MINUTE)
    assert said.endswith("a call more than 10 minutes late is skipped `overdue`")


def test_why_says_the_grace_of_an_every_handed_over(db):
    from tickwork.operator_store import OperatorStore
    from tickwork_cli.verbs import why

    id = run(handed(db, NINE).every(send_statement, None, "15m", overdue=5 * MINUTE))
    answer = run(why(OperatorStore(db), NINE + MINUTE, id, None))
    assert answer.data["rule"].startswith("every 15 minutes, overdue after 5 minutes: ")
    assert "a call more than 5 minutes late is skipped `overdue`" in answer.data["rule"]


def test_racing_tickers_record_an_every_overdue_skip_once(tmp_path):
    from test_retries_backfill_and_alerts_together import connections, race

    dbs = connections(tmp_path / "d1.sqlite")
    ticks(dbs[0], [census(overdue=5 * MINUTE)], NINE)
    race(dbs, [census(overdue=5 * MINUTE)], NINE + 21 * MINUTE)
    race(dbs, [census(overdue=5 * MINUTE)], NINE + 22 * MINUTE)
    assert [(r["outcome"], r["code"]) for r in runs(dbs[0])] == [(Outcome.SKIPPED, Code.OVERDUE)]


def test_a_run_asked_for_by_hand_on_a_due_row_later_than_its_grace_runs(db):
    """The operator asked for it: `overdue:` bounds how late the schedule's own call may be, not
    a run by hand (Kubernetes' startingDeadlineSeconds bounds the scheduled jobs alone too)."""
    ticks(db, [census(overdue=5 * MINUTE)], NINE)
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada' WHERE name = 'census'",
               (NINE + 15 * MINUTE + 6 * MINUTE,)))
    ticks(db, [census(overdue=5 * MINUTE)], NINE + 15 * MINUTE + 7 * MINUTE)
    [ran] = runs(db)
    assert (ran["outcome"], ran["by_hand"]) == (Outcome.SUCCEEDED, "ada")
    assert state(db).due_at == NINE + 30 * MINUTE


def test_a_deploy_changing_only_overdue_takes_effect_at_the_next_tick(db):
    """`overdue:` is no part of the form: the due time stays and the next tick reads it from the
    declaration as it is now."""
    ticks(db, [census()], NINE)
    ticks(db, [census(overdue=5 * MINUTE)], NINE + 15 * MINUTE + 6 * MINUTE)
    [skip] = runs(db)
    assert skip["code"] == Code.OVERDUE
