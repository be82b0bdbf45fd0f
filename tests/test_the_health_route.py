"""The health route for an uptime monitor: the last tick and its age, the schedules whose latest
run failed; 200 while ticks come, 503 once they stopped; it changes nothing."""

from helpers import every, open_store, run, ticks

from tickwork import Schedule
from tickwork.grid import Every
from tickwork.health import health
from tickwork.model import Retry
from tickwork.times import DAY, HOUR, MINUTE, utc

NINE = utc("2026-03-02 09:00")


async def broken():
    raise RuntimeError("down")


def test_while_ticks_come_it_answers_200_with_the_last_tick_and_the_failing_schedules():
    db = open_store()
    schedules = [every(1, "census"), Schedule("mailer", Every(MINUTE), broken)]
    ticks(db, schedules, NINE, NINE + MINUTE)
    status, body = run(health(db, NINE + MINUTE + 30_000))
    assert status == 200
    assert body == {"ok": True, "last_tick": "2026-03-02T09:01:00.000Z", "last_tick_age_s": 30,
                    "threshold_s": 180, "failing": ["mailer"]}


def test_a_schedule_whose_failed_run_has_a_retry_pending_is_not_failing_until_its_attempts_are_used_up():
    db = open_store()
    mailer = Schedule("mailer", Every(HOUR), broken, retry=Retry(1, MINUTE))
    ticks(db, [mailer], NINE, NINE + HOUR)  # the run of 10:00 failed; its retry is due at 10:01
    assert run(health(db, NINE + HOUR + 30_000))[1]["failing"] == []
    ticks(db, [mailer], NINE + HOUR + MINUTE)  # the retry failed too: no attempt left
    assert run(health(db, NINE + HOUR + MINUTE + 30_000))[1]["failing"] == ["mailer"]


def test_a_failing_schedule_whose_next_run_failed_with_a_retry_pending_stays_failing():
    db = open_store()
    mailer = Schedule("mailer", Every(HOUR), broken, retry=Retry(1, MINUTE))
    ticks(db, [mailer], NINE, NINE + HOUR, NINE + HOUR + MINUTE)  # 10:00's attempts are used up
    ticks(db, [mailer], NINE + 2 * HOUR)  # 11:00 failed too; its retry is due at 11:01
    assert run(health(db, NINE + 2 * HOUR + 30_000))[1]["failing"] == ["mailer"]


def test_a_failed_run_whose_retry_would_come_no_sooner_than_the_next_due_time_is_failing_at_once():
    db = open_store()
    mailer = Schedule("mailer", Every(HOUR), broken, retry=Retry(1, 2 * HOUR))
    ticks(db, [mailer], NINE, NINE + HOUR)  # its retry, at 12:00, is superseded by 11:00
    assert run(health(db, NINE + HOUR + 30_000))[1]["failing"] == ["mailer"]


def test_a_run_by_hand_that_fails_while_a_retry_is_pending_is_failing():
    db = open_store()
    mailer = Schedule("mailer", Every(HOUR), broken, retry=Retry(1, 10 * MINUTE))
    ticks(db, [mailer], NINE, NINE + HOUR)  # 10:00 failed; its retry is due at 10:10
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada' WHERE name = 'mailer'",
               (NINE + HOUR + MINUTE,)))
    ticks(db, [mailer], NINE + HOUR + 2 * MINUTE)  # the run by hand fails: it has no retry
    assert run(health(db, NINE + HOUR + 2 * MINUTE + 30_000))[1]["failing"] == ["mailer"]


def test_once_ticks_stopped_past_the_threshold_it_answers_503():
    db = open_store()
    ticks(db, [every(1)], NINE)
    status, body = run(health(db, NINE + 4 * MINUTE))
    assert (status, body["ok"], body["last_tick_age_s"]) == (503, False, 240)


def test_ticks_that_stopped_after_a_tick_by_hand_ahead_answer_503_as_the_clock_counts_them():
    db = open_store()
    ticks(db, [every(1)], NINE)
    ticks(db, [every(1)], NINE + 40 * DAY, started_at=NINE + 30_000)  # by hand, forty days ahead
    status, body = run(health(db, NINE + 4 * MINUTE))  # and no tick since, on the clock
    assert (status, body["ok"], body["last_tick"], body["last_tick_age_s"]) == (
        503, False, "2026-04-11T09:00:00.000Z", 210)


def test_a_database_never_ticked_answers_503():
    assert run(health(open_store(), NINE))[0] == 503


def test_it_changes_nothing():
    db = open_store()
    ticks(db, [every(1)], NINE)
    written = db.rows_written
    run(health(db, NINE))
    assert db.rows_written == written
