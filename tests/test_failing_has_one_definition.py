"""Issue 23: "failing" has one definition, which health, the console, the command and the alerts
all read. A declared schedule is failing when its latest counted run (succeeded or failed, its
own, not backfilled), in the order runs were made, failed; a failed attempt whose retry is still
to be made is passed over. A due time whose retry is skipped (the next due time superseded it, or
the schedule was paused) has used up its attempts: its failure is announced at the skip, once."""

import asyncio
import json

import pytest
from helpers import LEASE_REACH, lose_a_run, lost_run, open_store, run, tick_at, ticks
from harness import FakeQueue
from test_failures_announced import alerting, kept

from tickwork import Schedule
from tickwork.console.console_store import ConsoleStore
from tickwork.grid import Every
from tickwork.health import health
from tickwork.model import Retry
from tickwork.operator_store import OperatorStore
from tickwork.schedule_store import Claim, ScheduleStore
from tickwork.times import HOUR, MINUTE, SECOND, utc
from tickwork_cli.cli import main

NINE = utc("2026-03-02 09:00")


class Clock:
    """A monotonic clock the actions move: a run that takes 20 s moves it 20 s."""

    def __init__(self):
        self.seconds = 0.0

    def __call__(self) -> float:
        return self.seconds


class Scripted:
    """An action whose calls fail or succeed as `outcomes` says (True: succeeds), then always
    fail, each taking `takes` ms of `clock`."""

    def __init__(self, outcomes=(), clock: Clock | None = None, takes: int = 0):
        self.outcomes, self.clock, self.takes, self.calls = list(outcomes), clock, takes, 0

    async def __call__(self):
        self.calls += 1
        if self.clock is not None:
            self.clock.seconds += self.takes / 1000
        if not (self.outcomes.pop(0) if self.outcomes else False):
            raise RuntimeError("the mail server refused us")


def superseded_store(db, queue, clock, until=NINE + 5 * MINUTE):
    """`every: 2m`, `retry: 1 after 1m`, a run that raises 20 s in, minute ticks: the retry falls
    at +80 s, and the first tick after it is the next due time, which supersedes it."""
    schedules = [Schedule("mailer", Every(2 * MINUTE), Scripted(clock=clock, takes=20 * SECOND), retry=Retry(1, MINUTE))]
    moments = range(NINE - 2 * MINUTE, until + 1, MINUTE)
    ticks(db, schedules, *moments, monotonic=clock, **alerting(db, queue))
    return schedules


def failing_alerts(db):
    return [body for name, body in kept(db) if name == "tickwork.schedule_failing"]


# -- item 1: a superseded retry announces its due time's failure -------------------------------

def test_a_due_time_whose_retry_the_next_due_time_supersedes_announces_failing_once():
    db, queue, clock = open_store(), FakeQueue(), Clock()
    superseded_store(db, queue, clock)
    [first] = run(db.all("SELECT id, ended_at FROM tickwork_runs WHERE due_at = ?1 AND outcome = 'failed'", (NINE,)))
    [body] = failing_alerts(db)  # 09:00's, at the skip at 09:02; 09:02's and 09:04's find it failing
    assert (body["schedule"], body["run"], body["code"]) == ("mailer", first["id"], "internal_fault")
    assert (body["since"], body["at"]) == ("2026-03-02T09:00:20.000Z", "2026-03-02T09:00:20.000Z")
    assert [m["event"] for m in queue.messages if m["event"] != "tickwork.ticks_stopped"] == ["tickwork.schedule_failing"]
    assert run(health(db, NINE + 5 * MINUTE, failing=503))[1]["failing"] == ["mailer"]


def test_racing_ticks_superseding_a_retry_announce_its_failure_once():
    db, queue, clock = open_store(), FakeQueue(), Clock()
    schedules = superseded_store(db, queue, clock, until=NINE + MINUTE)

    async def race():
        await asyncio.gather(*(tick_at(db, schedules, NINE + 2 * MINUTE, monotonic=clock, **alerting(db, queue))
                               for _ in range(8)))

    run(race())
    assert len(failing_alerts(db)) == 1


def test_retries_superseded_at_once_announce_within_the_ticks_cap():
    db, queue, clock = open_store(), FakeQueue(), Clock()
    many = [Schedule(f"s{n:03}", Every(2 * MINUTE), Scripted(clock=clock, takes=20 * SECOND), retry=Retry(1, MINUTE))
            for n in range(300)]
    ticks(db, many, NINE - 2 * MINUTE, NINE, NINE + MINUTE, monotonic=clock, **alerting(db, queue))
    before = db.statements_run
    ticks(db, many, NINE + 2 * MINUTE, monotonic=clock, max_statements=40, **alerting(db, queue))
    assert db.statements_run - before <= 40 and failing_alerts(db)


def test_a_due_time_whose_retry_is_skipped_paused_announces_failing():
    db, queue = open_store(), FakeQueue()
    schedules = [Schedule("mailer", Every(15 * MINUTE), Scripted(), retry=Retry(2, MINUTE))]
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, **alerting(db, queue))
    assert failing_alerts(db) == []  # a retry is pending
    run(OperatorStore(db).change("pause", "mailer", "ada", NINE + 30 * SECOND))
    ticks(db, schedules, NINE + MINUTE, NINE + 2 * MINUTE, **alerting(db, queue))  # the retry is skipped paused
    assert [body["at"] for body in failing_alerts(db)] == ["2026-03-02T09:00:00.000Z"]
    assert run(health(db, NINE + 2 * MINUTE, failing=503))[1]["failing"] == ["mailer"]


def test_a_retry_superseded_only_because_the_ticks_stopped_past_it_is_not_announced_but_the_gap_is():
    db, queue = open_store(), FakeQueue()
    schedules = [Schedule("mailer", Every(15 * MINUTE), Scripted(), retry=Retry(2, MINUTE))]
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, **alerting(db, queue))
    ticks(db, schedules, NINE + 20 * MINUTE, **alerting(db, queue))  # none from 09:00 to 09:20
    assert failing_alerts(db) == []
    assert queue.messages[-1]["event"] == "tickwork.ticks_stopped"
    assert queue.messages[-1]["body"]["to"] == "2026-03-02T09:20:00.000Z"


# -- items 2 and 3: every reader agrees on the same store states -------------------------------

def mailer(action, pause=MINUTE, attempts=1):
    return [Schedule("mailer", Every(15 * MINUTE), action, retry=Retry(attempts, pause))]


def by_hand(db, at):
    run(OperatorStore(db).change("run", "mailer", "ada", at))


def retry_pending(db, queue, clock):
    ticks(db, mailer(Scripted()), NINE - 15 * MINUTE, NINE, **alerting(db, queue))


def attempts_used_up(db, queue, clock):
    ticks(db, mailer(Scripted()), NINE - 15 * MINUTE, NINE, NINE + MINUTE, **alerting(db, queue))


def retry_succeeded(db, queue, clock):
    ticks(db, mailer(Scripted([False, True])), NINE - 15 * MINUTE, NINE, NINE + MINUTE, **alerting(db, queue))


def retry_under_way(db, queue, clock):
    ticks(db, mailer(Scripted()), NINE - 15 * MINUTE, NINE, **alerting(db, queue))
    retry = Claim("mailer", NINE + MINUTE, NINE + 15 * MINUTE, lost_run(NINE + MINUTE), for_due=NINE, attempt=2,
                  retrying=2)
    run(ScheduleStore(db).claim([retry], NINE + 20 * MINUTE, tick=NINE + MINUTE, started=NINE + MINUTE))


def lost_with_no_attempt_left(db, queue, clock):
    schedules = [Schedule("mailer", Every(15 * MINUTE), Scripted([True] * 3))]
    ticks(db, schedules, NINE - 15 * MINUTE, **alerting(db, queue))
    lose_a_run(db, "mailer", due=NINE, next_due=NINE + 15 * MINUTE, until=NINE + 2 * MINUTE)
    ticks(db, schedules, NINE + 2 * MINUTE, NINE + 3 * MINUTE, **alerting(db, queue, at=NINE + 2 * MINUTE))


def lost_by_hand_with_the_retry_pending(db, queue, clock):
    schedules = mailer(Scripted(), pause=5 * MINUTE)
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, **alerting(db, queue))  # the retry is due 09:05
    by_hand = Claim("mailer", NINE + 5 * MINUTE, NINE + 5 * MINUTE, lost_run(NINE + MINUTE), by_hand="ada", retrying=2)
    run(ScheduleStore(db).claim([by_hand], NINE + 2 * MINUTE, tick=NINE + MINUTE, started=NINE + MINUTE))
    run(db.all(LEASE_REACH, (MINUTE,)))
    ticks(db, schedules, NINE + 3 * MINUTE, **alerting(db, queue, at=NINE + 3 * MINUTE))


def superseded(db, queue, clock):
    superseded_store(db, queue, clock)


def by_hand_failed_then_the_retry_succeeded(db, queue, clock):
    schedules = mailer(Scripted([False, False, True]), pause=2 * MINUTE)
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, **alerting(db, queue))
    by_hand(db, NINE + 30 * SECOND)
    ticks(db, schedules, NINE + MINUTE, NINE + 2 * MINUTE, **alerting(db, queue))


def by_hand_succeeded_then_the_retry_failed(db, queue, clock):
    schedules = mailer(Scripted([False, True, False]), pause=2 * MINUTE)
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, **alerting(db, queue))
    by_hand(db, NINE + 30 * SECOND)
    ticks(db, schedules, NINE + MINUTE, NINE + 2 * MINUTE, **alerting(db, queue))


def by_hand_failed_with_the_retry_pending(db, queue, clock):
    schedules = mailer(Scripted([True, False]), pause=2 * MINUTE)
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, **alerting(db, queue))
    by_hand(db, NINE + 30 * SECOND)
    ticks(db, schedules, NINE + MINUTE, **alerting(db, queue))


# Each store state, and whether the schedule is failing in it.
STATES = {
    retry_pending: False,
    attempts_used_up: True,
    retry_succeeded: False,
    retry_under_way: False,
    superseded: True,
    lost_with_no_attempt_left: True,
    lost_by_hand_with_the_retry_pending: True,
    by_hand_failed_with_the_retry_pending: True,
    by_hand_failed_then_the_retry_succeeded: False,
    by_hand_succeeded_then_the_retry_failed: True,
}
LATER = NINE + 10 * MINUTE


@pytest.fixture(params=list(STATES), ids=lambda made: made.__name__)
def made(request, tmp_path):
    db = open_store(tmp_path / "d1.sqlite")
    request.param(db, FakeQueue(), Clock())
    yield db, ["mailer"] if STATES[request.param] else []
    db.close()


def test_health_names_the_schedule_failing_as_the_definition_says(made):
    db, failing = made
    assert run(health(db, LATER))[1]["failing"] == failing


def test_the_console_overview_names_the_schedule_failing_as_health_does(made):
    db, failing = made
    assert run(ConsoleStore(db).overview(NINE - HOUR)).declared_failing == failing


def test_the_command_lists_the_schedule_failing_as_health_does(made, tmp_path, capsys):
    db, failing = made
    capsys.readouterr()
    main(["schedules", "--state", "failing", "--sqlite", str(tmp_path / "d1.sqlite"), "--project", str(tmp_path),
          "--json"], now=LATER)
    assert [s["name"] for s in json.loads(capsys.readouterr().out)["schedules"]] == failing


def test_the_alerts_last_said_the_schedule_is_failing_as_health_does(made):
    db, failing = made
    turns = [name for name, _ in kept(db) if name != "tickwork.ticks_stopped"]
    assert ["mailer"] * (turns[-1:] == ["tickwork.schedule_failing"]) == failing


def test_the_skip_alerts_read_only_the_skips_that_drop_a_retry():
    """The claim batch's alert statements are handed the skips that drop a pending retry, not the
    others of their chunk: a tick skipping many paused schedules reads no more for one retry."""
    handed = []

    def alerts(chunk):
        handed.extend(row[0] for row in json.loads(chunk))
        return []

    claims = [Claim("mailer", NINE + MINUTE, NINE + 15 * MINUTE, "z-retry", reason="paused", for_due=NINE, attempt=2,
                    retrying=2)]
    claims += [Claim(f"quiet{n}", NINE, NINE + 15 * MINUTE, f"z-quiet{n}", reason="paused") for n in range(3)]
    run(ScheduleStore(open_store()).claim(claims, NINE + 2 * MINUTE, tick=NINE + MINUTE, started=NINE + MINUTE,
                                          alerts=alerts))
    assert handed == ["mailer"]
