"""Schedules handed over at run time, one per item (seed 002, "A calendar per item"): called with
the input handed over and `at`, by a declared calendar's rules; deduplicated and cancelled by
id; ended by `expires` or by their action leaving the app; bad arguments refused with the
build's codes, nothing written."""

import asyncio
import functools
import os
import subprocess
import sys

import pytest
from helpers import ROOT, calendar, every, nested, open_store, run, runs, state, tick_at, ticks

from tickwork import ScheduleError, call, clock, items
from tickwork.per_item import Items
from tickwork.model import Code, Outcome
from tickwork.times import DAY, HOUR, MINUTE, utc

MADE: list[dict] = []


async def send_statement():
    MADE.append({"input": call.input, "at": call.at, "now": clock.now_ms})


async def subscribe():
    await items.calendar(send_statement, {"customer": "c7"}, "0 9 * * 1", zone="America/New_York")


def not_async():
    pass


async def takes(customer):
    pass


@pytest.fixture(autouse=True)
def made():
    MADE.clear()
    yield MADE


def handed(db, moment):
    return Items(db, lambda: moment)


SUNDAY = utc("2026-01-04 12:00")
MONDAY_NINE_BERLIN = utc("2026-01-05 08:00")


def statement(db, customer="c1", zone="Europe/Berlin", **options):
    return run(handed(db, SUNDAY).calendar(send_statement, {"customer": customer}, "0 9 * * 1", zone=zone, **options))


def test_a_calendar_handed_over_calls_its_action_with_the_input_and_at(db, made):
    statement(db)
    ticks(db, [], MONDAY_NINE_BERLIN)
    assert made == [{"input": {"customer": "c1"}, "at": MONDAY_NINE_BERLIN, "now": MONDAY_NINE_BERLIN}]


def test_each_item_is_called_in_its_own_zone(db, made):
    statement(db, "berlin", "Europe/Berlin")
    statement(db, "tokyo", "Asia/Tokyo")
    ticks(db, [], utc("2026-01-05 00:00"), MONDAY_NINE_BERLIN)
    assert [(m["input"]["customer"], m["at"]) for m in made] == [
        ("tokyo", utc("2026-01-05 00:00")), ("berlin", MONDAY_NINE_BERLIN)]


def test_a_call_is_made_late_instead_of_lost_and_one_occurrence_is_owed(db, made):
    statement(db)
    ticks(db, [], utc("2026-02-01 10:00"), utc("2026-02-01 10:01"))
    assert [m["at"] for m in made] == [utc("2026-01-26 08:00")]


def test_handing_the_same_schedule_over_twice_gives_one_schedule_and_the_same_id(db, made):
    first, second = statement(db), statement(db)
    assert first == second
    ticks(db, [], MONDAY_NINE_BERLIN)
    assert len(made) == 1


def test_another_input_or_zone_or_expiry_is_another_schedule(db):
    ids = {statement(db), statement(db, customer="c2"), statement(db, zone="Europe/Paris"),
           statement(db, expires=utc("2027-01-01 00:00"))}
    assert len(ids) == 4


def test_a_cancelled_schedule_makes_no_more_calls(db, made):
    id = statement(db)
    assert run(handed(db, SUNDAY).cancel(id)) is True
    assert run(handed(db, SUNDAY).cancel(id)) is False
    ticks(db, [], MONDAY_NINE_BERLIN)
    assert made == []


def test_one_cancelled_and_handed_over_again_comes_back_under_its_id_owing_nothing_from_before(db, made):
    id = statement(db)
    run(handed(db, SUNDAY).cancel(id))
    ticks(db, [], MONDAY_NINE_BERLIN)
    again = run(handed(db, utc("2026-01-07 12:00")).calendar(
        send_statement, {"customer": "c1"}, "0 9 * * 1", zone="Europe/Berlin"))
    assert again == id
    ticks(db, [], utc("2026-01-08 12:00"), utc("2026-01-12 08:00"))
    assert [m["at"] for m in made] == [utc("2026-01-12 08:00")]


def test_a_schedule_ends_when_expires_passes_recorded_expired(db, made):
    id = statement(db, expires=utc("2026-01-10 00:00"))
    ticks(db, [], MONDAY_NINE_BERLIN, utc("2026-01-12 08:00"), utc("2026-01-19 08:00"))
    assert [m["at"] for m in made] == [MONDAY_NINE_BERLIN]
    assert [(r["outcome"], r["code"]) for r in runs(db, id)] == [
        (Outcome.SUCCEEDED, None), (Outcome.SKIPPED, Code.EXPIRED)]
    assert state(db, id).removed_at is not None


def test_a_schedule_whose_action_left_the_app_ends_recorded_action_gone(db, made):
    module = type(sys)("going_away")
    sys.modules["going_away"] = module

    async def remind():
        MADE.append({"input": call.input})

    remind.__module__, remind.__qualname__ = "going_away", "remind"
    module.remind = remind
    id = run(handed(db, SUNDAY).every(remind, None, "1h"))
    del module.remind  # a deploy without it
    ticks(db, [], SUNDAY + HOUR, SUNDAY + 2 * HOUR)
    assert made == []
    [record] = runs(db, id)
    assert (record["outcome"], record["code"]) == (Outcome.FAILED, Code.ACTION_GONE)
    assert "no longer an action of the app" in record["detail"]


def test_an_interval_handed_over_runs_one_interval_on_with_at_the_latest_slot_owed(db, made):
    run(handed(db, SUNDAY).every(send_statement, {"customer": "c1"}, 15 * MINUTE))
    ticks(db, [], SUNDAY + 15 * MINUTE, SUNDAY + 47 * MINUTE)  # 12:30 and 12:45 missed: one run
    assert [(m["at"], m["now"]) for m in made] == [
        (SUNDAY + 15 * MINUTE, SUNDAY + 15 * MINUTE), (SUNDAY + 45 * MINUTE, SUNDAY + 47 * MINUTE)]


def test_a_late_interval_past_its_expiry_makes_its_last_slot_before_expires_and_ends(db, made):
    id = run(handed(db, SUNDAY).every(send_statement, None, 15 * MINUTE, expires=SUNDAY + 50 * MINUTE))
    ticks(db, [], SUNDAY + 15 * MINUTE, SUNDAY + 2 * HOUR, SUNDAY + 3 * HOUR)  # 12:30 and 12:45 missed
    assert [m["at"] for m in made] == [SUNDAY + 15 * MINUTE, SUNDAY + 45 * MINUTE]
    assert [(r["outcome"], r["at"]) for r in runs(db, id)] == [
        (Outcome.SUCCEEDED, SUNDAY + 15 * MINUTE), (Outcome.SUCCEEDED, SUNDAY + 45 * MINUTE)]
    assert state(db, id).removed_at == SUNDAY + 2 * HOUR


def test_a_one_off_moment_is_called_once_at_its_moment(db, made):
    run(handed(db, SUNDAY).once(send_statement, {"order": 9}, SUNDAY + HOUR))
    ticks(db, [], SUNDAY + 30 * MINUTE, SUNDAY + HOUR + MINUTE, SUNDAY + DAY)
    assert made == [{"input": {"order": 9}, "at": SUNDAY + HOUR, "now": SUNDAY + HOUR + MINUTE}]


def test_each_slot_is_called_exactly_once_however_ticks_race(db, made):
    for customer in range(20):
        statement(db, f"c{customer}")

    async def race():
        await asyncio.gather(*(tick_at(db, [], MONDAY_NINE_BERLIN) for _ in range(4)))

    run(race())
    assert sorted(m["input"]["customer"] for m in made) == sorted(f"c{k}" for k in range(20))


def test_an_action_hands_a_schedule_over_from_inside_its_run(db, made):
    signup = every(15, "signup", action=subscribe)
    ticks(db, [signup], utc("2026-01-04 12:00"), utc("2026-01-04 12:15"))
    ticks(db, [signup], utc("2026-01-05 14:00"))
    assert [(m["input"], m["at"]) for m in made] == [({"customer": "c7"}, utc("2026-01-05 14:00"))]


def test_a_deploy_that_changes_the_declared_schedules_keeps_those_handed_over(db, made):
    statement(db)
    ticks(db, [every(15, "a")], SUNDAY + MINUTE)
    ticks(db, [every(15, "b")], SUNDAY + 2 * MINUTE, MONDAY_NINE_BERLIN)
    assert len(made) == 1


def test_hand_over_and_cancel_are_one_statement_each(db):
    before = db.statements_run
    id = statement(db)
    run(handed(db, SUNDAY).cancel(id))
    assert db.statements_run - before == 2


def test_a_thousand_due_items_all_run_in_one_tick(db, made):
    for customer in range(1000):
        statement(db, f"c{customer}")
    [report] = ticks(db, [], MONDAY_NINE_BERLIN, max_statements=50)
    assert len(report.runs) == 1000 and len(made) == 1000


WRONG = [
    ("cron", dict(cron="R * * * *"), "schedule.cron_invalid"),
    ("cron", dict(cron="0 0 30 2 *"), "schedule.cron_invalid"),
    ("cron", dict(cron="*/10 * * * * *"), "deployable.target_unsupported"),
    ("cron", dict(zone="Mars/Olympus"), "schedule.zone_invalid"),
    ("cron", dict(nonexistent="maybe"), "schedule.dst_invalid"),
    ("cron", dict(overdue=-1), "schedule.overdue_invalid"),
    ("cron", dict(expires="soon"), "schedule.expires_invalid"),
    ("cron", dict(input={1, 2}), "schedule.input_invalid"),
    ("cron", dict(input="x" * 70_000), "schedule.input_invalid"),
    ("cron", dict(action=not_async), "schedule.run_invalid"),
    ("cron", dict(action=takes), "schedule.run_invalid"),
    ("cron", dict(action="nowhere:nothing"), "schedule.run_invalid"),
    ("cron", dict(action=123), "schedule.run_invalid"),
    ("cron", dict(action=None), "schedule.run_invalid"),
    ("cron", dict(action=functools.partial(send_statement)), "schedule.run_invalid"),
    ("cron", dict(action="..:x"), "schedule.run_invalid"),
    ("cron", dict(action=f"{__name__}:send_statement"), "schedule.run_invalid"),
    ("cron", dict(input=nested(10_000)), "schedule.input_invalid"),
    ("cron", dict(input=nested(101)), "schedule.input_invalid"),
    ("cron", dict(input={"name": "\ud800"}), "schedule.input_invalid"),
    ("cron", dict(input="é" * 33_000), "schedule.input_invalid"),
    ("every", dict(every="30s"), "deployable.target_unsupported"),
    ("every", dict(every="１５m"), "schedule.every_invalid"),
    ("every", dict(every=0), "schedule.every_invalid"),
    ("once", dict(at=1.5), "schedule.at_invalid"),
]


@pytest.mark.parametrize("kind, wrong, code", WRONG)
def test_bad_arguments_raise_with_the_builds_codes_and_write_nothing(db, kind, wrong, code):
    given = {"action": send_statement, "input": {"customer": "c1"}, **wrong}
    hand = handed(db, SUNDAY)
    if kind == "cron":
        options = {k: v for k, v in given.items() if k not in ("action", "input", "cron")}
        attempt = hand.calendar(given["action"], given["input"], given.get("cron", "0 9 * * 1"), **options)
    elif kind == "every":
        attempt = hand.every(given["action"], given["input"], given["every"])
    else:
        attempt = hand.once(given["action"], given["input"], given["at"])
    with pytest.raises(ScheduleError) as raised:
        run(attempt)
    assert raised.value.code == code
    assert run(db.all("SELECT COUNT(*) AS n FROM tickwork_schedules")) == [{"n": 0}]


def test_a_one_off_moment_made_is_done_and_handing_it_over_again_makes_no_second_call(db, made):
    id = run(handed(db, SUNDAY).once(send_statement, {"order": 9}, SUNDAY + HOUR))
    ticks(db, [], SUNDAY + HOUR)
    again = run(handed(db, SUNDAY + 2 * HOUR).once(send_statement, {"order": 9}, SUNDAY + HOUR))
    ticks(db, [], SUNDAY + 3 * HOUR)
    assert again == id and len(made) == 1
    assert state(db, id).removed_at == SUNDAY + HOUR


def test_an_occurrence_owed_from_before_expires_is_made_late_then_the_schedule_ends(db, made):
    id = run(handed(db, SUNDAY).calendar(send_statement, {"customer": "c1"}, "0 * * * *",
                                         expires=SUNDAY + 90 * MINUTE))
    ticks(db, [], SUNDAY + 3 * HOUR, SUNDAY + 4 * HOUR)  # no tick between 12:00 and 15:00
    assert [m["at"] for m in made] == [SUNDAY + HOUR]
    assert state(db, id).removed_at is not None


def test_an_action_named_by_a_string_is_refused_without_importing_it(db, tmp_path, monkeypatch):
    (tmp_path / "imported_on_hand_over.py").write_text("async def remind():\n    pass\n")
    monkeypatch.syspath_prepend(tmp_path)
    with pytest.raises(ScheduleError) as raised:
        run(handed(db, SUNDAY).once("imported_on_hand_over:remind", None, SUNDAY + HOUR))
    assert raised.value.code == "schedule.run_invalid"
    assert "imported_on_hand_over" not in sys.modules


@pytest.mark.parametrize("id", [["a"], None, 7, "", "remind@\ud800"])
def test_cancelling_what_is_not_an_id_raises_id_invalid(db, id):
    with pytest.raises(ScheduleError) as raised:
        run(handed(db, SUNDAY).cancel(id))
    assert raised.value.code == "schedule.id_invalid"


def test_an_input_nested_100_deep_is_kept(db, made):
    run(handed(db, SUNDAY).once(send_statement, nested(100), SUNDAY + HOUR))
    ticks(db, [], SUNDAY + HOUR)
    assert made[0]["input"] == nested(100)


# A thread stack about as shallow as Pyodide's: json.dumps of a value 5,000 deep overflows it,
# which there is a fatal error of the interpreter, not a RecursionError.
SHALLOW_STACK = f"""
import asyncio, threading
from helpers import nested, open_store
from test_schedules_handed_over import send_statement
from tickwork import ScheduleError
from tickwork.per_item import Items

codes = []
def hand_over():
    try:
        asyncio.run(Items(open_store(), lambda: {SUNDAY}).once(send_statement, nested(5_000), {SUNDAY + HOUR}))
    except ScheduleError as error:
        codes.append(error.code)
threading.stack_size(256 * 1024)
thread = threading.Thread(target=hand_over)
thread.start()
thread.join()
print(codes)
"""


def test_an_input_nested_thousands_deep_is_refused_before_it_is_encoded_on_a_stack_as_shallow_as_pyodides():
    paths = os.pathsep.join(str(ROOT / part) for part in ("src", "scripts", "tests"))
    done = subprocess.run([sys.executable, "-c", SHALLOW_STACK], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": paths}, cwd=ROOT)
    assert (done.returncode, done.stdout.strip()) == (0, "['schedule.input_invalid']"), done.stderr[-2000:]


def test_an_input_is_measured_in_the_utf8_bytes_it_is_kept_in(db, made):
    run(handed(db, SUNDAY).once(send_statement, "é" * 32_000, SUNDAY + HOUR))  # 64,002 bytes as JSON
    ticks(db, [], SUNDAY + HOUR)
    assert made[0]["input"] == "é" * 32_000
    [row] = run(db.all("SELECT length(CAST(input AS BLOB)) AS bytes FROM tickwork_schedules"))
    assert row["bytes"] == 64_002


# The ids these inputs had while inputs were kept ASCII-escaped: DEL is ASCII, yet was escaped.
@pytest.mark.parametrize("input, kept_id", [
    ({"customer": "Zoë"}, "send_statement@a8cd624d82353239690790a20f33bf4f"),
    ({"note": "rub\x7fout"}, "send_statement@2510236cfe1b8c5bc8f12d78e9ab15cf"),
], ids=["beyond-ascii", "delete-character"])
def test_an_input_keeps_the_id_it_had_when_kept_escaped(db, input, kept_id):
    assert run(handed(db, SUNDAY).once(send_statement, input, SUNDAY + HOUR)) == kept_id


def test_an_occurrence_owed_from_before_expires_later_than_overdue_allows_is_not_made(db, made):
    id = run(handed(db, SUNDAY).calendar(send_statement, None, "0 * * * *", overdue=HOUR,
                                         expires=SUNDAY + 90 * MINUTE))
    ticks(db, [], SUNDAY + 4 * DAY)  # the 13:00 call, owed from before expires, is four days late
    assert made == []
    [record] = runs(db, id)
    assert (record["outcome"], record["code"], record["at"]) == (Outcome.SKIPPED, Code.EXPIRED, SUNDAY + HOUR)
    assert "overdue allows 3600000 ms" in record["detail"]
    assert state(db, id).removed_at == SUNDAY + 4 * DAY


# Found in the review of issues 8 and 9 (tests/test_defects_found_in_review.py, split by rule).
NINE = utc("2026-03-02 09:00")


def test_no_call_is_made_after_a_cancel_that_committed_before_the_claim():
    from tickwork.database import Database
    from tickwork.schedule_store import TAKE_LEASES_ENDING

    db = open_store()
    reminder = run(Items(db, lambda: NINE).once(_remind, {"todo": 1}, NINE + MINUTE))

    class CancelBeforeClaim(Database):
        cancelled = None

        @property
        def statements_run(self):
            return db.statements_run

        async def all(self, sql, params=()):
            return await db.all(sql, params)

        async def batch(self, statements):
            if self.cancelled is None and any(sql == TAKE_LEASES_ENDING for sql, _ in statements):
                self.cancelled = await Items(db, lambda: NINE + MINUTE).cancel(reminder)
            return await db.batch(statements)

    racing = CancelBeforeClaim()
    REMINDED.clear()
    ticks(racing, [], NINE + MINUTE)
    assert racing.cancelled is True
    assert REMINDED == []


REMINDED: list = []


async def _remind():
    REMINDED.append(call.input)
