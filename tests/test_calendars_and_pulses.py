"""Calendars and pulses over sequences of ticks: late instead of lost, one owed, `overdue`,
one call per moment, changed forms, pulse shares; each call reads its input from `call`."""

import asyncio

from helpers import (
    Blocking,
    calendar,
    pulse,
    Inputs,
    every,
    run,
    runs,
    state,
    tick_at,
    ticks,
    while_first_call_runs,
)

from tickwork.calendars import FIRST, SECOND, SHIFTED, CronCalendar
from tickwork.model import Code, Outcome
from tickwork.times import DAY, HOUR, MINUTE, utc
from tickwork.times import SECOND as S


MONDAY_NINE_BERLIN = "0 9 * * 1"


def test_a_calendar_is_called_at_its_occurrence_with_at_in_milliseconds(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-04 12:00"), utc("2026-01-05 07:59"), utc("2026-01-05 08:00"))
    assert weekly.action.made == [{"now": utc("2026-01-05 08:00"), "at": utc("2026-01-05 08:00"), "n": None, "i": None}]
    assert runs(db, "weekly")[0]["at"] == utc("2026-01-05 08:00")


def test_a_calendar_is_made_late_instead_of_lost(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-04 12:00"), utc("2026-01-05 08:20"))
    assert weekly.action.made == [{"now": utc("2026-01-05 08:20"), "at": utc("2026-01-05 08:00"), "n": None, "i": None}]


def test_after_a_month_without_ticks_one_call_is_owed_for_the_latest_occurrence(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-04 12:00"), utc("2026-02-03 10:00"))
    assert weekly.action.at == [utc("2026-02-02 08:00")]
    assert len(runs(db, "weekly")) == 1
    assert state(db, "weekly").due_at == utc("2026-02-09 08:00")


def test_a_call_later_than_overdue_is_skipped_with_reason_overdue(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin", overdue=HOUR)
    ticks(db, [weekly], utc("2026-01-04 12:00"), utc("2026-01-05 09:01"))
    assert weekly.action.made == []
    [skip] = runs(db, "weekly")
    assert (skip["outcome"], skip["code"], skip["at"]) == (Outcome.SKIPPED, Code.OVERDUE, utc("2026-01-05 08:00"))
    assert state(db, "weekly").due_at == utc("2026-01-12 08:00")


def test_a_call_within_overdue_is_made(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin", overdue=HOUR)
    ticks(db, [weekly], utc("2026-01-04 12:00"), utc("2026-01-05 09:00"))
    assert weekly.action.at == [utc("2026-01-05 08:00")]


def test_a_calendar_seen_first_owes_nothing_from_before_it_was_seen(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-05 08:30"))
    assert weekly.action.made == []
    assert state(db, "weekly").due_at == utc("2026-01-12 08:00")


def test_two_ticks_racing_make_each_calendar_moment_exactly_once(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-04 12:00"))

    async def race():
        await asyncio.gather(*(tick_at(db, [weekly], utc("2026-01-05 08:00")) for _ in range(3)))

    run(race())
    ticks(db, [weekly], utc("2026-01-05 08:01"), utc("2026-01-05 08:02"))
    assert weekly.action.at == [utc("2026-01-05 08:00")]


def test_a_changed_calendar_is_not_called_at_the_moment_stored_for_its_old_form(db):
    ticks(db, [calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")], utc("2026-01-04 12:00"))  # due Mon 08:00
    moved = calendar("0 10 * * 1", "Europe/Berlin")
    ticks(db, [moved], utc("2026-01-05 08:30"), utc("2026-01-05 09:00"))
    assert moved.action.at == [utc("2026-01-05 09:00")]
    assert [r["at"] for r in runs(db, "weekly")] == [utc("2026-01-05 09:00")]


def test_a_removed_calendar_is_not_called_again(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-04 12:00"))
    ticks(db, [], utc("2026-01-05 08:00"))
    assert weekly.action.made == [] and runs(db, "weekly") == []


def test_two_calendars_of_one_action_falling_on_one_moment_make_one_call(db):
    action = Inputs()
    berlin = calendar("0 9 * * *", "Europe/Berlin", name="berlin", action=action)
    lagos = calendar("0 9 * * *", "Africa/Lagos", name="lagos", action=action)  # also UTC+1
    ticks(db, [berlin, lagos], utc("2026-01-04 12:00"), utc("2026-01-05 08:00"))
    assert action.at == [utc("2026-01-05 08:00")]
    outcomes = {r["schedule"]: (r["outcome"], r["code"]) for r in runs(db, "berlin") + runs(db, "lagos")}
    assert outcomes == {"berlin": (Outcome.SUCCEEDED, None), "lagos": (Outcome.SKIPPED, Code.COALESCED)}


def test_calendars_of_one_action_on_different_moments_each_make_their_call(db):
    action = Inputs()
    berlin = calendar("0 9 * * *", "Europe/Berlin", name="berlin", action=action)
    london = calendar("0 9 * * *", "Europe/London", name="london", action=action)
    ticks(db, [berlin, london], utc("2026-01-04 12:00"), utc("2026-01-05 08:00"), utc("2026-01-05 09:00"))
    assert action.at == [utc("2026-01-05 08:00"), utc("2026-01-05 09:00")]


def test_a_calendar_held_by_its_unfinished_call_is_made_late_when_that_call_ends(db):
    slow = Blocking()
    tenly = calendar("*/10 * * * *", name="tenly", action=slow)
    ticks(db, [tenly], utc("2026-01-05 08:55"))
    [held], [after] = while_first_call_runs(
        db, [tenly], slow, utc("2026-01-05 09:00"),
        during=[utc("2026-01-05 09:10")],  # the lease runs to 09:15
        after=[utc("2026-01-05 09:12")],
    )
    assert held.runs == []
    assert [r.call.at for r in after.runs] == [utc("2026-01-05 09:10")]
    assert [c["at"] for c in slow.made] == [utc("2026-01-05 09:00"), utc("2026-01-05 09:10")]


def test_a_calendar_tick_records_the_daylight_saving_rule_it_applied(db):
    nightly = calendar("30 2 * * *", "Europe/Berlin", name="nightly", repeated="both")
    minutes = range(0, 4 * 60)
    kept = {"retention": 365 * DAY}  # the spring's records, still there in the autumn
    ticks(db, [nightly], utc("2026-03-28 23:00"), *(utc("2026-03-29 00:00") + m * MINUTE for m in minutes), **kept)
    ticks(db, [nightly], *(utc("2026-10-24 23:00") + m * MINUTE for m in minutes), **kept)
    assert [(r["at"], r["dst"]) for r in runs(db, "nightly")] == [
        (utc("2026-03-29 01:00"), SHIFTED),
        (utc("2026-10-24 00:30"), None),  # owed since the spring: made late, on the first tick
        (utc("2026-10-25 00:30"), FIRST),
        (utc("2026-10-25 01:30"), SECOND),
    ]


def test_the_call_for_gap_times_that_fall_with_the_time_after_the_gap_is_recorded_shifted(db):
    thirds = calendar("*/20 * * * *", "Europe/Berlin", name="thirds")
    ticks(db, [thirds], utc("2026-03-29 00:50"), utc("2026-03-29 01:00"), utc("2026-03-29 01:20"))
    assert [(r["at"], r["dst"]) for r in runs(db, "thirds")] == [
        (utc("2026-03-29 01:00"), SHIFTED),  # 02:00, 02:20, 02:40 CET never happen; 03:00 CEST does
        (utc("2026-03-29 01:20"), None),
    ]


def test_a_paused_calendar_is_skipped_with_reason_paused(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-04 12:00"))
    run(db.all("UPDATE tickwork_schedules SET paused = 1"))
    ticks(db, [weekly], utc("2026-01-05 08:00"))
    assert [(r["outcome"], r["code"]) for r in runs(db, "weekly")] == [(Outcome.SKIPPED, Code.PAUSED)]


def test_a_pulse_is_called_at_each_share_counted_from_the_epoch_with_n_and_i(db):
    sweep = pulse(cycle=86400 * S, intervals=24)
    hours = [utc("2026-01-05 00:00") + h * HOUR for h in range(25)]
    ticks(db, [sweep], utc("2026-01-04 23:30"), *hours)
    assert [(m["n"], m["i"]) for m in sweep.action.made] == [(24, i) for i in range(24)] + [(24, 0)]
    assert sweep.action.made[0]["at"] is None


def test_a_missed_share_is_not_made_up_the_next_call_is_for_the_next_i(db):
    sweep = pulse(cycle=86400 * S, intervals=24)
    ticks(db, [sweep], utc("2026-01-04 23:30"), utc("2026-01-05 04:00"), utc("2026-01-05 06:10"), utc("2026-01-05 07:00"))
    assert [m["i"] for m in sweep.action.made] == [4, 6, 7]  # i = 5 waits a whole cycle


def test_a_pulse_of_five_minutes_falls_on_the_hours_fives(db):
    expire = pulse(cycle=300 * S, name="expire")
    minutes = [utc("2026-01-05 10:00") + m * MINUTE for m in range(16)]
    ticks(db, [expire], utc("2026-01-05 09:58"), *minutes)
    assert [m["now"] for m in expire.action.made] == [utc(f"2026-01-05 10:{m:02}") for m in (0, 5, 10, 15)]
    assert {(m["n"], m["i"]) for m in expire.action.made} == {(1, 0)}


def test_a_pulse_is_not_called_while_its_previous_call_runs_and_the_skip_is_recorded(db):
    slow = Blocking()
    sweep = pulse(cycle=3600 * S, intervals=6, action=slow)
    ticks(db, [sweep], utc("2026-01-05 08:50"))
    [held], _ = while_first_call_runs(
        db, [sweep], slow, utc("2026-01-05 09:00"), [utc("2026-01-05 09:10")]  # lease to 09:15
    )
    assert [(r.outcome, r.code, r.call.i) for r in held.runs] == [(Outcome.SKIPPED, Code.RUNNING, 1)]
    assert [c["i"] for c in slow.made] == [0]
    assert state(db, "sweep").due_at == utc("2026-01-05 09:20")


def test_a_changed_pulse_starts_again_on_its_new_cycle(db):
    ticks(db, [pulse(cycle=3600 * S)], utc("2026-01-05 08:50"))  # due 09:00
    quicker = pulse(cycle=600 * S)
    ticks(db, [quicker], utc("2026-01-05 08:51"), utc("2026-01-05 09:00"))
    assert state(db, "sweep").due_at == utc("2026-01-05 09:10")
    assert [m["now"] for m in quicker.action.made] == [utc("2026-01-05 09:00")]


def test_an_every_schedule_turned_into_a_calendar_keeps_no_moment_of_its_old_form(db):


    ticks(db, [every(15, "weekly")], utc("2026-01-05 07:50"))  # due 08:05
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    ticks(db, [weekly], utc("2026-01-05 07:55"), utc("2026-01-05 08:05"))
    assert weekly.action.at == [utc("2026-01-05 08:00")]


def test_when_the_first_calendar_of_an_action_cannot_call_another_one_makes_the_call(db):
    action = Inputs()
    strict = calendar("0 9 * * *", name="a_strict", action=action, overdue=MINUTE)
    loose = calendar("0 9 * * *", name="b_loose", action=action)
    ticks(db, [strict, loose], utc("2026-01-04 12:00"), utc("2026-01-05 09:05"))
    assert action.at == [utc("2026-01-05 09:00")]
    assert [(r["outcome"], r["code"]) for r in runs(db, "a_strict")] == [(Outcome.SKIPPED, Code.OVERDUE)]


def test_calendars_of_one_action_make_one_call_for_a_moment_however_ticks_race(db):
    action = Inputs()
    entries = [calendar("0 9 * * *", name=name, action=action) for name in ("a", "b", "c")]
    ticks(db, entries, utc("2026-01-04 12:00"))

    async def race():
        orders = [entries, entries[::-1], entries[1:] + entries[:1]]
        await asyncio.gather(*(tick_at(db, order, utc("2026-01-05 09:00")) for order in orders))

    run(race())
    assert action.at == [utc("2026-01-05 09:00")]
    outcomes = sorted((r["outcome"], r["code"]) for name in "abc" for r in runs(db, name))
    assert outcomes == [(Outcome.SKIPPED, Code.COALESCED)] * 2 + [(Outcome.SUCCEEDED, None)]


def test_a_calendar_removed_and_declared_again_owes_nothing_from_while_it_was_gone(db):
    weekly = calendar(MONDAY_NINE_BERLIN, "Europe/Berlin")
    other = calendar("0 * * * *", name="hourly")
    ticks(db, [weekly, other], utc("2026-01-04 12:00"))
    ticks(db, [other], utc("2026-01-05 08:00"), utc("2026-01-06 10:00"))  # weekly removed
    ticks(db, [weekly, other], utc("2026-01-07 10:00"))  # and declared again
    assert weekly.action.made == []
    assert state(db, "weekly").due_at == utc("2026-01-12 08:00")


def test_calendars_sharing_a_form_are_worked_out_once_a_tick(db):
    searched = []
    original = CronCalendar._search

    def counting(self, moment, forward):
        searched.append((self.zone, forward))
        return original(self, moment, forward)

    entries = [calendar("0 9 * * *", "Europe/Berlin", name=f"c{k}") for k in range(3)]
    entries += [calendar("0 9 * * *", "Asia/Tokyo", name="tokyo")]
    ticks(db, entries, utc("2026-01-04 12:00"))
    CronCalendar._search = counting
    try:
        ticks(db, entries, utc("2026-01-05 09:00"))
    finally:
        CronCalendar._search = original
    assert sorted(searched) == sorted([("Europe/Berlin", False), ("Europe/Berlin", True)] * 1
                                      + [("Asia/Tokyo", False), ("Asia/Tokyo", True)])


# Found in the review of issues 8 and 9 (tests/test_defects_found_in_review.py, split by rule).
NINE = utc("2026-03-02 09:00")


def test_a_calendar_whose_moment_another_calendar_made_gives_its_lease_back(db):
    shared = Inputs()
    thirds = calendar("*/3 * * * *", name="thirds", action=shared)
    halves = calendar("*/2 * * * *", name="halves", action=shared)
    ticks(db, [thirds, halves], *[NINE + k * MINUTE for k in range(0, 11)])
    coalesced = [r for r in runs(db, "halves") if r["code"] == Code.COALESCED]
    assert [r["at"] for r in coalesced] == [NINE + 6 * MINUTE]
    assert state(db, "halves").lease_run is None
    # halves' own moments after the shared one are made on time, not lost to the held lease
    assert sorted(shared.at) == [NINE + k * MINUTE for k in (2, 3, 4, 6, 8, 9, 10)]
