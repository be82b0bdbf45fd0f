"""Schedules handed over in bulk (issue 15): many items a statement, as a set over a JSON list, the
statements counted against what the caller has left (a tick's cap beside the run's own end, an
invocation's 1,000 or 50), and what did not fit handed back rather than failing the run. Each
item is checked as a single hand-over checks it and gets the id a single one gives."""

import json

import pytest
from helpers import run, state, ticks

from tickwork import Schedule, ScheduleError, call, items, on_success
from tickwork.store import sql
from tickwork.calendars import CACHED, CronCalendar, cron_calendar
from tickwork.grid import Every
from tickwork.model import Outcome
from tickwork.per_item import Items
from tickwork.times import DAY, HOUR, MINUTE, utc

MADE: list = []
DONE: list = []

SUNDAY = utc("2026-01-04 12:00")
MONDAY_NINE_BERLIN = utc("2026-01-05 08:00")
FREE_PLAN = 50


async def send_statement():
    MADE.append((call.input, call.at))


@pytest.fixture(autouse=True)
def cleared():
    MADE.clear()
    DONE.clear()


def handed(db, room=None, moment=SUNDAY):
    return Items(db, lambda: moment, room)


def invocation(db, statements):
    """Items as a handler's invocation has them: `statements` in all, counted on the adapter."""
    return handed(db, lambda: statements - db.statements_run)


def customers(count, first=0):
    return [{"customer": k} for k in range(first, first + count)]


def rows(db):
    [row] = run(db.all("SELECT COUNT(*) AS n FROM tickwork_schedules WHERE action IS NOT NULL AND ended IS NULL"))
    return row["n"]


def small_statements(monkeypatch, size=2_000):
    """A few items a statement, so that a handful of items spans many statements."""
    monkeypatch.setattr(sql, "JSON_BYTES", size)


def test_ten_thousand_items_are_handed_over_in_a_few_statements_and_one_round_trip(db):
    done = run(handed(db).calendar_many(send_statement, customers(10_000), "0 9 * * 1", zone="Europe/Berlin"))
    assert db.statements_run <= 10 and db.round_trips == 1
    assert (len(done.ids), done.left_over, rows(db)) == (10_000, [], 10_000)


def test_two_thousand_items_fit_the_free_plans_fifty_statements(db):
    done = run(invocation(db, FREE_PLAN).every_many(send_statement, customers(2_000), "1d"))
    assert (len(done.ids), done.left_over) == (2_000, [])
    assert db.statements_run <= FREE_PLAN


def test_each_item_handed_over_in_bulk_has_the_id_a_single_hand_over_gives(db):
    many = run(handed(db).calendar_many(send_statement, customers(3), "0 9 * * 1", zone="Asia/Tokyo",
                                        expires=SUNDAY + DAY * 30))
    single = [run(handed(db).calendar(send_statement, c, "0 9 * * 1", zone="Asia/Tokyo", expires=SUNDAY + DAY * 30))
              for c in customers(3)]
    assert many.ids == single and rows(db) == 3


def test_items_handed_over_in_bulk_are_called_as_single_ones_are(db):
    run(handed(db).calendar_many(send_statement, customers(2), "0 9 * * 1", zone="Europe/Berlin"))
    ticks(db, [], MONDAY_NINE_BERLIN)
    assert sorted(MADE, key=lambda m: m[0]["customer"]) == [({"customer": 0}, MONDAY_NINE_BERLIN),
                                                          ({"customer": 1}, MONDAY_NINE_BERLIN)]


def test_handing_the_same_items_over_again_keeps_one_schedule_each_and_its_due_time(db):
    first = run(handed(db).every_many(send_statement, customers(5), "1h"))
    again = run(handed(db, moment=SUNDAY + MINUTE * 30).every_many(send_statement, customers(5), "1h"))
    assert again.ids == first.ids and rows(db) == 5
    assert state(db, first.ids[0]).due_at == SUNDAY + HOUR


def test_a_bad_item_refuses_the_whole_call_saying_which_and_writes_nothing(db):
    inputs = customers(3) + [{"customer": float("nan")}] + customers(3, first=3)
    with pytest.raises(ScheduleError, match="item 3 of 7: the input is not JSON") as refused:
        run(handed(db).once_many(send_statement, inputs, SUNDAY + HOUR))
    assert refused.value.code == "schedule.input_invalid"
    assert (db.statements_run, rows(db)) == (0, 0)


def test_a_bad_timing_is_refused_with_the_single_calls_code(db):
    with pytest.raises(ScheduleError) as refused:
        run(handed(db).calendar_many(send_statement, customers(3), "0 9 30 2 *"))
    assert refused.value.code == "schedule.cron_invalid" and "never comes due" in str(refused.value)
    assert rows(db) == 0


def test_what_the_statements_left_do_not_reach_is_handed_back_unwritten(db, monkeypatch):
    small_statements(monkeypatch)
    inputs = customers(40)
    done = run(handed(db, lambda: 2).every_many(send_statement, inputs, "1d"))
    assert (db.statements_run, db.round_trips) == (2, 1) and 0 < len(done.ids) < 40
    assert done.left_over == inputs[len(done.ids):] and rows(db) == len(done.ids)


def test_items_left_over_handed_over_again_complete_the_set(db, monkeypatch):
    small_statements(monkeypatch)
    inputs = customers(40)
    first = run(handed(db, lambda: 2).every_many(send_statement, inputs, "1d"))
    rest = run(handed(db).every_many(send_statement, first.left_over, "1d"))
    whole = run(handed(db).every_many(send_statement, inputs, "1d"))
    assert first.ids + rest.ids == whole.ids and rows(db) == 40


def test_no_statement_left_writes_nothing_and_hands_every_item_back(db):
    done = run(handed(db, lambda: 0).every_many(send_statement, customers(3), "1d"))
    assert (done.ids, done.left_over, db.statements_run) == ([], customers(3), 0)


def test_hand_over_takes_items_of_any_timing_by_the_single_calls_arguments(db):
    given = [
        {"action": send_statement, "input": {"c": 1}, "cron": "0 9 * * 1", "zone": "Europe/Berlin", "overdue": HOUR},
        {"action": send_statement, "input": {"c": 2}, "every": "15m", "expires": SUNDAY + DAY},
        {"action": send_statement, "input": {"c": 3}, "at": SUNDAY + HOUR},
    ]
    done = run(handed(db).hand_over(given))
    assert done.ids == [
        run(handed(db).calendar(send_statement, {"c": 1}, "0 9 * * 1", zone="Europe/Berlin", overdue=HOUR)),
        run(handed(db).every(send_statement, {"c": 2}, "15m", expires=SUNDAY + DAY)),
        run(handed(db).once(send_statement, {"c": 3}, SUNDAY + HOUR)),
    ]
    assert db.round_trips == 4 and rows(db) == 3


@pytest.mark.parametrize("item, said", [
    ({"action": send_statement, "input": 1}, "names one of `cron`, `every` or `at`, not none"),
    ({"action": send_statement, "input": 1, "every": "1h", "at": SUNDAY}, "not every and at"),
    ({"action": send_statement, "input": 1, "at": SUNDAY, "expires": SUNDAY}, "takes no `expires`"),
    ({"action": send_statement, "input": 1, "every": "1h", "zone": "UTC"}, "takes no `zone`"),
    ({"action": send_statement, "every": "1h"}, "names its `input`"),
], ids=["no-timing", "two-timings", "once-expires", "every-zone", "no-input"])
def test_hand_over_refuses_an_item_that_is_no_single_calls_arguments(db, item, said):
    with pytest.raises(TypeError, match=f"item 1 of 2: .*{said}"):
        run(handed(db).hand_over([{"action": send_statement, "input": 0, "every": "1h"}, item]))
    assert db.statements_run == 0


def test_cancel_many_ends_those_going_on_and_says_which_it_ended(db):
    ids = run(handed(db).every_many(send_statement, customers(4), "1d")).ids
    run(handed(db).cancel(ids[0]))
    done = run(handed(db).cancel_many(ids + ["send_statement@none"]))
    assert (done.ids, done.left_over, rows(db)) == (ids[1:], [], 0)


def test_cancel_many_hands_back_the_ids_the_statements_left_do_not_reach(db, monkeypatch):
    ids = run(handed(db).every_many(send_statement, customers(300), "1d")).ids
    small_statements(monkeypatch)
    done = run(handed(db, lambda: 1).cancel_many(ids))
    assert 0 < len(done.ids) < 300 and done.left_over == ids[len(done.ids):]
    assert rows(db) == 300 - len(done.ids)


def test_cancel_many_of_what_is_no_id_is_refused_saying_which(db):
    with pytest.raises(ScheduleError, match="item 1 of 2") as refused:
        run(handed(db).cancel_many(["send_statement@a", ""]))
    assert refused.value.code == "schedule.id_invalid" and db.statements_run == 0


async def enrol():
    DONE.append(await items.every_many(send_statement, customers(200), "1d"))


ENROL = Schedule("enrol", Every(MINUTE), enrol)


def test_a_run_hands_over_in_bulk_within_the_ticks_cap_and_its_end_is_recorded(db, monkeypatch):
    ticks(db, [ENROL], SUNDAY)
    small_statements(monkeypatch)
    before, cap = db.statements_run, 12
    [report] = ticks(db, [ENROL], SUNDAY + MINUTE, max_statements=cap)
    [done] = DONE
    assert [r.outcome for r in report.runs] == [Outcome.SUCCEEDED]
    assert db.statements_run - before <= cap
    assert 0 < len(done.ids) < 200 and done.left_over == customers(200)[len(done.ids):]
    assert rows(db) == len(done.ids)


async def note_and_enrol():
    on_success.write("INSERT INTO notes (n) VALUES (1)")
    DONE.append(await items.every_many(send_statement, customers(200), "1d"))


def test_a_run_hands_over_in_bulk_leaving_room_for_its_own_writes_beside_its_end(db, monkeypatch):
    run(db.all("CREATE TABLE notes (n INTEGER)"))
    noting = [Schedule("enrol", Every(MINUTE), note_and_enrol)]
    ticks(db, noting, SUNDAY)
    small_statements(monkeypatch)
    before, cap = db.statements_run, 12
    [report] = ticks(db, noting, SUNDAY + MINUTE, max_statements=cap)
    assert [r.outcome for r in report.runs] == [Outcome.SUCCEEDED]
    assert db.statements_run - before <= cap and 0 < len(DONE[0].ids) < 200
    assert run(db.all("SELECT n FROM notes")) == [{"n": 1}]


def test_a_run_without_a_cap_hands_every_item_over(db):
    ticks(db, [ENROL], SUNDAY, SUNDAY + MINUTE)
    [done] = DONE
    assert (len(done.ids), done.left_over, rows(db)) == (200, [], 200)


def test_a_calendar_of_a_cron_and_zone_is_made_once_and_the_cache_is_bounded():
    assert cron_calendar("0 9 * * 1", "Europe/Berlin") is cron_calendar("0 9 * * 1", "Europe/Berlin")
    assert cron_calendar("0 9 * * 1", "Europe/Berlin") is not cron_calendar("0 9 * * 1", "Asia/Tokyo")
    assert cron_calendar.cache_info().maxsize == CACHED


@pytest.mark.parametrize("cron, zone", [("30 2 * * *", "Europe/Berlin"), ("0 * * * *", "America/New_York"),
                                        ("15 1 * * *", "Australia/Lord_Howe")])
def test_the_next_occurrence_told_again_from_the_last_answer_is_what_a_fresh_search_finds(cron, zone):
    kept = CronCalendar(cron, zone)
    moment = utc("2026-03-07 00:00") if zone != "Australia/Lord_Howe" else utc("2026-04-03 00:00")
    for step in range(0, 3 * 24 * 60, 7):  # around the zone's spring or autumn change, every 7 minutes
        at = moment + step * MINUTE
        assert kept.next_after(at) == CronCalendar(cron, zone).next_after(at), json.dumps([cron, zone, at])
