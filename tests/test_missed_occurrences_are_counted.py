"""Issue 17, "Missed occurrences are counted": a run (or its skip) that a tick made for a schedule
owing several occurrences records how many it covers, the first and the last."""

import asyncio

import pytest

from helpers import calendar, every, pulse, run, runs, tick_at, ticks
from test_retries_backfill_and_alerts_together import Interleaved

from tickwork.calendars import Calendar, CronCalendar
from tickwork.grid import Every
from tickwork.pulses import Pulse
from tickwork.times import DAY, HOUR, MINUTE, utc


def covers(run) -> tuple:
    return run["covers"], run["covers_first"], run["covers_last"], run["covers_more"]


def test_a_run_after_a_gap_records_the_grid_slots_it_covers_the_first_and_the_latest(db):
    ticks(db, [every(15)], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"), utc("2026-03-02 10:15"))
    [on_time, late] = runs(db)
    assert covers(on_time) == (None, None, None, None)
    assert covers(late) == (4, utc("2026-03-02 09:30"), utc("2026-03-02 10:15"), 0)


def test_a_month_of_minutely_slots_is_counted_not_walked(db):
    ticks(db, [every(1)], utc("2026-03-01 00:00"), utc("2026-03-31 00:01"))
    [run] = runs(db)
    assert covers(run) == (30 * DAY // MINUTE + 1, utc("2026-03-01 00:01"), utc("2026-03-31 00:01"), 0)


def test_a_calendar_run_after_an_outage_records_the_moments_it_covers(db):
    monthly = calendar("0 0 1 * *", name="statement")
    ticks(db, [monthly], utc("2026-01-15 00:00"), utc("2026-04-01 00:05"))
    [run] = runs(db, "statement")
    assert run["at"] == utc("2026-04-01 00:00")
    assert covers(run) == (3, utc("2026-02-01 00:00"), utc("2026-04-01 00:00"), 0)


def test_an_overdue_skip_records_the_moments_it_covers(db):
    daily = calendar("0 9 * * *", name="daily", overdue=HOUR)
    ticks(db, [daily], utc("2026-01-01 00:00"), utc("2026-01-04 12:00"))
    [skip] = runs(db, "daily")
    assert (skip["outcome"], skip["code"]) == ("skipped", "overdue")
    assert covers(skip) == (4, utc("2026-01-01 09:00"), utc("2026-01-04 09:00"), 0)


def test_a_pulse_after_a_gap_records_the_shares_it_covers(db):
    ticks(db, [pulse(HOUR, 4)], utc("2026-01-01 00:01"), utc("2026-01-01 01:20"))
    [run] = runs(db, "sweep")
    assert covers(run) == (5, utc("2026-01-01 00:15"), utc("2026-01-01 01:15"), 0)


def test_a_calendar_counted_past_its_bound_records_that_it_covers_more_than_that_many(db):
    minutely = calendar("* * * * *", name="minutely")
    ticks(db, [minutely], utc("2026-01-01 00:00"), utc("2026-01-02 00:00"))
    [run] = runs(db, "minutely")
    assert covers(run) == (100, utc("2026-01-01 00:01"), utc("2026-01-02 00:00"), 1)


@pytest.mark.parametrize("missed, tick, more", [
    (99, utc("2026-01-01 01:39"), 0), (100, utc("2026-01-01 01:40"), 0), (101, utc("2026-01-01 01:41"), 1)])
def test_a_calendar_run_covering_exactly_the_bound_records_that_many_and_past_it_more(db, missed, tick, more):
    """Counting stops at 100: a run covering 100 covers exactly 100, one covering 101 more than 100."""
    minutely = calendar("* * * * *", name="minutely")
    ticks(db, [minutely], utc("2026-01-01 00:00"), tick)
    [run] = runs(db, "minutely")
    assert covers(run) == (min(missed, 100), utc("2026-01-01 00:01"), tick, more)


def test_a_record_past_the_bound_says_more_than_the_bound_were_missed():
    from tickwork.words import missed_words

    record = {"outcome": "succeeded", "covers": 100, "covers_first": utc("2026-01-01 00:01"), "covers_last": utc("2026-01-02 00:00")}
    assert missed_words({**record, "covers_more": 1}, "minutely").startswith("more than 100 occurrences missed")
    assert missed_words({**record, "covers_more": 0}, "minutely").startswith("100 occurrences missed")


def test_a_run_on_time_records_no_count(db):
    ticks(db, [calendar("0 9 * * *", name="daily")], utc("2026-01-01 00:00"), utc("2026-01-01 09:00"))
    [run] = runs(db, "daily")
    assert covers(run) == (None, None, None, None)


def test_the_timings_list_their_occurrences_in_a_range_oldest_first_to_a_bound():
    grid = Every(15 * MINUTE)
    due = utc("2026-03-02 09:07")
    assert [c.at for c in grid.occurrences(due, utc("2026-03-02 08:00"), utc("2026-03-02 09:00"), 10)] == [
        utc("2026-03-02 08:07"), utc("2026-03-02 08:22"), utc("2026-03-02 08:37"), utc("2026-03-02 08:52")]
    assert len(grid.occurrences(due, utc("2026-03-01 00:00"), utc("2026-03-02 00:00"), 5)) == 5
    shares = Pulse(HOUR, 4).occurrences(0, utc("2026-01-01 00:10"), utc("2026-01-01 00:45"), 10)
    assert [(c.at, c.n, c.i) for c in shares] == [(utc("2026-01-01 00:15"), 4, 1), (utc("2026-01-01 00:30"), 4, 2),
                                                  (utc("2026-01-01 00:45"), 4, 3)]
    monthly = Calendar(CronCalendar("0 0 1 * *", "Europe/Berlin"))
    assert [c.at for c in monthly.occurrences(0, utc("2026-01-01 00:00"), utc("2026-03-31 00:00"), 10)] == [
        utc("2026-01-31 23:00"), utc("2026-02-28 23:00")]


def test_why_says_how_many_occurrences_were_missed_and_offers_a_backfill(tmp_path, capsys):
    from harness import OperatorHarness

    app = OperatorHarness(tmp_path, capsys)
    app.tick([calendar("0 0 1 * *", name="statement")], utc("2026-01-15 00:00"), utc("2026-04-01 00:05"))
    _, text, _ = app.run("why", "statement", now=utc("2026-04-01 00:06"), json_=False)
    assert ("3 occurrences missed, 2026-02-01 00:00 UTC to 2026-04-01 00:00 UTC; this run is for the latest: "
            "`tickwork backfill statement --from 2026-02-01T00:00:00.000Z --to 2026-04-01T00:00:00.000Z`") in text
    _, answer, _ = app.run("history", "statement", now=utc("2026-04-01 00:06"))
    assert answer["runs"][0]["covers"] == {
        "count": 3, "at_least": False,
        "first": {"ms": utc("2026-02-01 00:00"), "utc": "2026-02-01T00:00:00.000Z", "relative": "59 d ago"},
        "last": {"ms": utc("2026-04-01 00:00"), "utc": "2026-04-01T00:00:00.000Z", "relative": "6 min ago"}}
    _, text, _ = app.run("history", "statement", now=utc("2026-04-01 00:06"), json_=False)
    assert "3 occurrences missed, 2026-02-01 00:00 UTC to 2026-04-01 00:00 UTC" in text
    app.db.close()


def test_history_says_a_backfilled_run_was_a_backfill_and_who_asked(tmp_path, capsys):
    from harness import OperatorHarness

    app = OperatorHarness(tmp_path, capsys)
    monthly = calendar("0 0 1 * *", name="statement")
    app.tick([monthly], utc("2026-01-15 00:00"), utc("2026-04-01 00:05"))
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-02-01T00:00Z", "--who", "ana",
            now=utc("2026-04-01 00:06"))
    app.tick([monthly], utc("2026-04-01 00:06"))
    _, answer, _ = app.run("history", "statement", now=utc("2026-04-01 00:07"))
    assert sorted((r["backfill"] or "", r["at"]["ms"]) for r in answer["runs"]) == [
        ("", utc("2026-04-01 00:00")), ("ana", utc("2026-02-01 00:00"))]
    _, text, _ = app.run("history", "statement", now=utc("2026-04-01 00:07"), json_=False)
    header, backfilled = text.splitlines()[1:3]
    assert "BY HAND" not in header and "ASKED FOR" in header
    assert "backfill by ana" in backfilled
    app.db.close()


def test_history_says_a_run_after_missed_occurrences_is_for_the_latest_of_them(tmp_path, capsys):
    """Its DUE is the first missed occurrence, its CALL the latest: the row says which it is for."""
    from harness import OperatorHarness

    app = OperatorHarness(tmp_path, capsys)
    app.tick([calendar("0 0 1 * *", name="statement")], utc("2026-01-15 00:00"), utc("2026-04-01 00:05"))
    for argv in (["history", "statement"], ["history"]):
        _, text, _ = app.run(*argv, now=utc("2026-04-01 00:06"), json_=False)
        [row] = [line for line in text.splitlines() if "at 2026-04-01 00:00 UTC" in line]
        assert row.split()[:2] in (["2026-02-01", "00:00"], ["2026-04-01", "00:05"]), row
        assert "3 occurrences missed, 2026-02-01 00:00 UTC to 2026-04-01 00:00 UTC; this run is for the latest" in row
    app.db.close()


def test_the_operator_log_says_a_backfills_range_in_iso_utc_times(tmp_path, capsys):
    from harness import OperatorHarness

    app = OperatorHarness(tmp_path, capsys)
    app.tick([calendar("0 0 1 * *", name="statement")], utc("2026-01-15 00:00"), utc("2026-04-01 00:05"))
    app.run("backfill", "statement", "--from", "2026-02-01T00:00Z", "--to", "2026-03-01T00:00Z", "--who", "ana",
            now=utc("2026-04-01 00:06"))
    _, text, _ = app.run("history", "statement", now=utc("2026-04-01 00:07"), json_=False)
    [logged] = [line for line in text.splitlines() if " ana backfill " in line]
    assert logged.endswith("from 2026-02-01T00:00:00.000Z to 2026-03-01T00:00:00.000Z)"), logged
    app.db.close()



def test_a_run_after_a_deploy_removed_and_restored_its_grid_schedule_records_the_slots_it_covers(db):
    """A calendar removed and declared again owes nothing from while it was gone (as before);
    a grid schedule owes its slots, and counts them."""
    ticks(db, [every(15)], utc("2026-03-02 09:00"), utc("2026-03-02 09:15"))
    ticks(db, [], utc("2026-03-02 09:20"), utc("2026-03-02 10:00"))  # a deploy without it, ticking on
    ticks(db, [every(15)], utc("2026-03-02 10:15"))
    [_, restored] = runs(db)
    assert covers(restored) == (4, utc("2026-03-02 09:30"), utc("2026-03-02 10:15"), 0)


def test_a_calendar_a_deploy_removed_and_restored_records_the_moments_it_missed_as_one_skip(db):
    """It owes nothing from while it was gone (no call), but what it missed is recorded, once,
    however ticks race, so that `history` and `why` can say so and backfill can be offered."""
    daily = calendar("0 9 * * *", name="daily")
    ticks(db, [daily], utc("2026-01-01 00:00"), utc("2026-01-01 09:00"))
    ticks(db, [], utc("2026-01-01 12:00"), utc("2026-01-03 12:00"))  # a deploy without it, ticking on
    async def racing():
        await asyncio.gather(*(tick_at(Interleaved(db), [daily], utc("2026-01-04 09:30")) for _ in range(8)))

    run(racing())
    ticks(db, [daily], utc("2026-01-04 09:31"))
    [made, missed] = runs(db, "daily")
    assert daily.action.at == [made["at"]] == [utc("2026-01-01 09:00")]
    assert (missed["outcome"], missed["code"], missed["due_at"], missed["at"]) == (
        "skipped", "undeclared", utc("2026-01-02 09:00"), utc("2026-01-04 09:00"))
    assert covers(missed) == (3, utc("2026-01-02 09:00"), utc("2026-01-04 09:00"), 0)
