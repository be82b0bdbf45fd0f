"""Failures announced (issue 17): with an alerts queue, tickwork emits through the outbox one
event when a schedule starts failing, one when it recovers, and one when a tick finds that ticks
had stopped; not one a failed run. The health route answers 503 for failing schedules when the
app asks for it."""

import asyncio
import json

from faults import Faulty, Meanwhile, at
from harness import FakeQueue
from helpers import lose_a_run, lost_run, open_store, run, tick_at, ticks

from tickwork import Schedule
from tickwork.grid import Every
from tickwork.health import health
from tickwork.model import Retry
from tickwork.outbox import Outbox
from tickwork.outbox_store import OutboxStore
from tickwork.times import MINUTE, utc

NINE = utc("2026-03-02 09:00")
SEEDED = NINE - MINUTE  # the tick that first finds the schedules: they come due from NINE


class Mailer:
    """An action that fails while `failing` is set."""

    def __init__(self, failing: bool = True):
        self.failing = failing

    async def __call__(self):
        if self.failing:
            raise RuntimeError("the mail server refused us")


def alerting(db, queue, at=NINE):
    return {"outbox": Outbox(db, {"ALERTS": queue}, frozenset(), lambda: at), "alerts": "ALERTS"}


def alerts(queue):
    return [(m["event"], m["body"]) for m in queue.messages]


def kept(db):
    return [(d["name"], json.loads(d["body"])) for d in run(OutboxStore(db).deliveries())]


def mailer(action):
    return Schedule("mailer", Every(MINUTE), action)


def test_one_event_when_a_schedule_starts_failing():
    db, queue = open_store(), FakeQueue()
    ticks(db, [mailer(Mailer())], SEEDED, NINE, **alerting(db, queue))
    [(event, body)] = alerts(queue)
    assert event == "tickwork.schedule_failing"
    assert {k: body[k] for k in ("schedule", "outcome", "code", "since", "at")} == {
        "schedule": "mailer", "outcome": "failed", "code": "internal_fault",
        "since": "2026-03-02T09:00:00.000Z", "at": "2026-03-02T09:00:00.000Z"}
    assert body["detail"] == "RuntimeError: the mail server refused us"
    [record] = run(db.all("SELECT id, trace FROM tickwork_runs"))
    assert (body["run"], body["trace"], queue.messages[0]["trace"]) == (record["id"], record["trace"], record["trace"])


def test_no_event_for_its_next_failures():
    db, queue = open_store(), FakeQueue()
    ticks(db, [mailer(Mailer())], SEEDED, *(NINE + k * MINUTE for k in range(5)), **alerting(db, queue))
    assert [event for event, _ in alerts(queue)] == ["tickwork.schedule_failing"]
    assert len(kept(db)) == 1


def test_one_event_when_it_recovers_saying_since_when_it_failed():
    db, queue, action = open_store(), FakeQueue(), Mailer()
    ticks(db, [mailer(action)], SEEDED, NINE, NINE + MINUTE, **alerting(db, queue))
    action.failing = False
    ticks(db, [mailer(action)], NINE + 2 * MINUTE, NINE + 3 * MINUTE, **alerting(db, queue))
    assert [event for event, _ in alerts(queue)] == ["tickwork.schedule_failing", "tickwork.schedule_recovered"]
    recovered = alerts(queue)[1][1]
    assert (recovered["outcome"], recovered["code"], recovered["since"], recovered["at"]) == (
        "succeeded", None, "2026-03-02T09:00:00.000Z", "2026-03-02T09:02:00.000Z")


def test_one_event_when_a_schedule_starts_failing_by_a_run_whose_worker_was_lost():
    db, queue = open_store(), FakeQueue()
    schedules = [mailer(Mailer())]
    ticks(db, schedules, SEEDED, **alerting(db, queue))
    lose_a_run(db, "mailer", due=NINE, next_due=NINE + MINUTE, until=NINE + 2 * MINUTE)
    ticks(db, schedules, NINE + 2 * MINUTE, NINE + 3 * MINUTE, **alerting(db, queue, at=NINE + 2 * MINUTE))
    [(event, body)] = alerts(queue)  # its next runs fail too: no more events
    assert event == "tickwork.schedule_failing"
    assert {k: body[k] for k in ("schedule", "outcome", "code", "since", "at", "run")} == {
        "schedule": "mailer", "outcome": "failed", "code": "lease_expired", "since": "2026-03-02T09:02:00.000Z",
        "at": "2026-03-02T09:02:00.000Z", "run": lost_run(NINE)}
    assert body["detail"].startswith("the run held its lease past")


def test_racing_ticks_finding_a_lost_run_announce_it_once():
    db, queue = open_store(), FakeQueue()
    schedules = [mailer(Mailer(failing=False))]
    ticks(db, schedules, SEEDED, **alerting(db, queue))
    lose_a_run(db, "mailer", due=NINE, next_due=NINE + 10 * MINUTE, until=NINE + 2 * MINUTE)

    async def race():
        await asyncio.gather(*(tick_at(db, schedules, NINE + 2 * MINUTE, **alerting(db, queue)) for _ in range(8)))

    run(race())
    assert [(name, body["code"]) for name, body in kept(db)] == [("tickwork.schedule_failing", "lease_expired")]


def test_a_schedule_that_never_failed_makes_no_event():
    db, queue = open_store(), FakeQueue()
    ticks(db, [mailer(Mailer(failing=False))], SEEDED, NINE, NINE + MINUTE, **alerting(db, queue))
    assert queue.messages == [] and kept(db) == []


def test_one_event_when_ticks_had_stopped_with_the_gap():
    db, queue = open_store(), FakeQueue()
    ticks(db, [], NINE, NINE + 20 * MINUTE, NINE + 21 * MINUTE, **alerting(db, queue))
    assert alerts(queue) == [("tickwork.ticks_stopped", {
        "from": "2026-03-02T09:00:00.000Z", "to": "2026-03-02T09:20:00.000Z", "gap_s": 1200})]


def test_no_event_without_alerts_configured():
    db, queue = open_store(), FakeQueue()
    box = Outbox(db, {"ALERTS": queue}, frozenset(), lambda: NINE)
    ticks(db, [mailer(Mailer())], SEEDED, NINE, NINE + 20 * MINUTE, outbox=box)
    assert queue.messages == [] and kept(db) == []


def test_an_end_written_again_after_its_batch_landed_keeps_one_event():
    db, queue = open_store(), FakeQueue()
    flaky = Faulty(db, at("ends"), landed=True)
    ticks(flaky, [mailer(Mailer())], SEEDED, NINE, **alerting(flaky, queue))
    assert flaky.failed and [name for name, _ in kept(db)] == ["tickwork.schedule_failing"]


def test_exactly_once_when_a_racing_tick_ended_the_schedules_next_run_first():
    """A tick's run fails; before its end is written, another tick finds its lease lapsed, which
    is announced (`lease_expired`), and makes the next run, which fails too. Neither that end nor
    the first, decided in SQL, announces anything more."""
    db, queue = open_store(), FakeQueue()
    schedules = [mailer(Mailer())]

    async def another_tick_runs_it_again():
        await tick_at(db, schedules, NINE + 20 * MINUTE, **alerting(db, queue))

    ticks(db, schedules, SEEDED)
    late = Meanwhile(db, at("ends"), another_tick_runs_it_again)
    asyncio.run(tick_at(late, schedules, NINE, **alerting(late, queue)))
    failing = [(body["run"], body["code"]) for name, body in kept(db) if name == "tickwork.schedule_failing"]
    [first] = run(db.all("SELECT id FROM tickwork_runs WHERE due_at = ?1", (NINE,)))
    assert late.happened and failing == [(first["id"], "lease_expired")]


class FailingFirst:
    """An action failing its first `failures` calls."""

    def __init__(self, failures: int):
        self.failures, self.calls = failures, 0

    async def __call__(self):
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("the mail server refused us")


def retrying(action, pause=MINUTE):
    """Due each quarter hour from NINE (first seen a quarter hour before), with two attempts more after `pause`, then twice that."""
    return Schedule("mailer", Every(15 * MINUTE), action, retry=Retry(2, pause))


# Its attempts for NINE: at NINE, NINE + 1m, NINE + 3m.
ATTEMPTS = (NINE, NINE + MINUTE, NINE + 3 * MINUTE)


def turns(queue):
    """The schedule's alerts sent, not the gaps these tests' sparse ticks leave."""
    return [(event, body) for event, body in alerts(queue) if event != "tickwork.ticks_stopped"]


def turns_kept(db):
    return [name for name, _ in kept(db) if name != "tickwork.ticks_stopped"]


def test_with_retries_a_retry_that_succeeds_announces_nothing():
    db, queue = open_store(), FakeQueue()
    ticks(db, [retrying(FailingFirst(2))], NINE - 15 * MINUTE, *ATTEMPTS, **alerting(db, queue))
    assert turns(queue) == [] and turns_kept(db) == []


def test_with_retries_failing_is_announced_once_when_the_due_times_attempts_are_used_up():
    db, queue = open_store(), FakeQueue()
    schedules = [retrying(FailingFirst(1_000))]
    ticks(db, schedules, NINE - 15 * MINUTE, *ATTEMPTS[:2], **alerting(db, queue))
    assert turns(queue) == []  # an attempt is left
    ticks(db, schedules, ATTEMPTS[2], NINE + 15 * MINUTE, NINE + 16 * MINUTE, **alerting(db, queue))
    [(event, body)] = turns(queue)
    [last] = run(db.all("SELECT id FROM tickwork_runs WHERE due_at = ?1 AND attempt = 3", (NINE,)))
    assert (event, body["run"], body["at"]) == ("tickwork.schedule_failing", last["id"], "2026-03-02T09:03:00.000Z")


def test_with_retries_racing_ticks_announce_the_used_up_attempts_once():
    db, queue = open_store(), FakeQueue()
    schedules = [retrying(FailingFirst(1_000))]
    ticks(db, schedules, NINE - 15 * MINUTE, *ATTEMPTS[:2], **alerting(db, queue))

    async def race():
        await asyncio.gather(*(tick_at(db, schedules, ATTEMPTS[2], **alerting(db, queue)) for _ in range(8)))

    run(race())
    assert turns_kept(db) == ["tickwork.schedule_failing"]


def test_with_retries_a_failed_attempt_whose_retry_the_next_due_time_supersedes_announces_failing():
    """Pauses of 10m then 20m: the third attempt would come at NINE + 30m, after the next due
    time, NINE + 15m, which supersedes it; the second attempt's failure is the due time's last."""
    db, queue = open_store(), FakeQueue()
    schedules = [retrying(FailingFirst(1_000), pause=10 * MINUTE)]
    ticks(db, schedules, NINE - 15 * MINUTE, NINE, **alerting(db, queue))
    assert turns(queue) == []
    ticks(db, schedules, NINE + 10 * MINUTE, NINE + 15 * MINUTE, **alerting(db, queue))
    [(event, body)] = turns(queue)
    assert (event, body["at"]) == ("tickwork.schedule_failing", "2026-03-02T09:10:00.000Z")


def test_with_retries_a_recovery_after_announced_failing_is_announced_once():
    db, queue = open_store(), FakeQueue()
    schedules = [retrying(FailingFirst(4))]  # the three attempts for NINE, then the first for 09:15
    ticks(db, schedules, NINE - 15 * MINUTE, *ATTEMPTS, NINE + 15 * MINUTE, NINE + 16 * MINUTE,
          NINE + 30 * MINUTE, **alerting(db, queue))
    assert [event for event, _ in turns(queue)] == ["tickwork.schedule_failing", "tickwork.schedule_recovered"]
    assert turns(queue)[1][1]["at"] == "2026-03-02T09:16:00.000Z"


def test_with_retries_a_lost_run_with_attempts_left_announces_nothing_and_its_retry_succeeding_neither():
    db, queue = open_store(), FakeQueue()
    schedules = [retrying(FailingFirst(0))]
    ticks(db, schedules, NINE - 15 * MINUTE, **alerting(db, queue))
    lose_a_run(db, "mailer", due=NINE, next_due=NINE + 15 * MINUTE, until=NINE + 2 * MINUTE)
    ticks(db, schedules, NINE + 2 * MINUTE, NINE + 3 * MINUTE, **alerting(db, queue, at=NINE + 2 * MINUTE))
    assert [(r["attempt"], r["outcome"]) for r in run(db.all("SELECT attempt, outcome FROM tickwork_runs ORDER BY attempt"))] == [
        (1, "failed"), (2, "succeeded")]
    assert turns(queue) == [] and turns_kept(db) == []


def test_health_answers_503_with_failing_503_and_says_which():
    db = open_store()
    ticks(db, [mailer(Mailer()), Schedule("census", Every(MINUTE), Mailer(failing=False))], SEEDED, NINE)
    status, body = run(health(db, NINE + 30_000, failing=503))
    assert (status, body["ok"], body["failing"]) == (503, False, ["mailer"])


def test_health_answers_200_for_failing_schedules_unless_asked():
    db = open_store()
    ticks(db, [mailer(Mailer())], SEEDED, NINE)
    status, body = run(health(db, NINE + 30_000))
    assert (status, body["ok"], body["failing"]) == (200, True, ["mailer"])


def test_health_with_failing_503_answers_200_while_none_fails():
    db = open_store()
    ticks(db, [mailer(Mailer(failing=False))], SEEDED, NINE)
    assert run(health(db, NINE + 30_000, failing=503))[0] == 200


def test_a_run_ending_after_its_lease_lapsed_announces_no_recovery():
    """The racing tick's run fails and is announced; the first run then succeeds, but its end
    finds its record lease_expired and lands nowhere: the schedule is still failing."""
    db, queue = open_store(), FakeQueue()
    action = Mailer(failing=False)
    schedules = [mailer(action)]
    ticks(db, schedules, SEEDED)

    async def another_tick_runs_it_and_fails():
        action.failing = True
        await tick_at(db, schedules, NINE + 20 * MINUTE, **alerting(db, queue))

    late = Meanwhile(db, at("ends"), another_tick_runs_it_and_fails)
    asyncio.run(tick_at(late, schedules, NINE, **alerting(late, queue)))
    turns = [name for name, _ in kept(db) if name != "tickwork.ticks_stopped"]
    assert late.happened and turns == ["tickwork.schedule_failing"]


def cost(db, schedules, moment, **options):
    """Statements, round trips and rows written of the tick at `moment`, the one before a minute
    earlier and the hour's housekeeping done."""
    ticks(db, schedules, moment - MINUTE, **options)
    run(db.all("UPDATE tickwork_app SET housekeeping_done_at = ?1", (moment,)))
    before = db.statements_run, db.round_trips, db.rows_written
    ticks(db, schedules, moment, **options)
    return db.statements_run - before[0], db.round_trips - before[1], db.rows_written - before[2]


def test_with_alerts_a_nothing_due_tick_stays_two_statements_in_one_round_trip_writing_one_row():
    db, queue = open_store(), FakeQueue()
    schedules = [Schedule("hourly", Every(60 * MINUTE), Mailer())]
    ticks(db, schedules, NINE, **alerting(db, queue))
    assert cost(db, schedules, NINE + 14 * MINUTE, **alerting(db, queue)) == (2, 1, 1)


def test_with_alerts_a_due_runs_end_adds_no_round_trip():
    """A failing schedule's next failed run: its end, the alert decided in the same batch."""
    def round_trips(alerts: bool):
        db, queue = open_store(), FakeQueue()
        options = alerting(db, queue) if alerts else {"outbox": alerting(db, queue)["outbox"]}
        ticks(db, [mailer(Mailer())], SEEDED, **options)
        return cost(db, [mailer(Mailer())], NINE + MINUTE, **options)[1]

    assert round_trips(alerts=True) == round_trips(alerts=False) == 3


def test_with_alerts_a_thousand_starting_to_fail_at_once_stay_within_the_ticks_cap():
    db, queue = open_store(), FakeQueue()
    thousand = [Schedule(f"s{n:04}", Every(MINUTE), Mailer()) for n in range(1000)]
    ticks(db, thousand, SEEDED, **alerting(db, queue))
    before = db.statements_run
    [report] = ticks(db, thousand, NINE, max_statements=50, **alerting(db, queue))
    assert db.statements_run - before <= 50 and len(queue.messages) == len(report.runs) > 0
