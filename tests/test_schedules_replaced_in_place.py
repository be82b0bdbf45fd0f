"""Issue 25, "Changing a handed-over schedule in place": `items.replace(old_id, ...)` and
`items.replace_many` end the old schedule and hand the new one over in one batch, so there is
never a moment with both or neither, however calls race; the new id comes from its content, the
label carries over, and the two are linked: the old one ended "replaced by" the new one, the new
one "replaces" the old one."""

import asyncio

import pytest
from faults import Faulty, first_with
from helpers import run, runs, ticks

from tickwork import ScheduleError, call, clock, items
from tickwork.per_item import Items
from tickwork.store.replaces import REPLACE_END
from tickwork.times import DAY, HOUR, MINUTE, utc

MADE: list[tuple] = []
HELD: list[asyncio.Event] = []


async def send_statement():
    MADE.append(("statement", call.input, call.at))


async def send_reminder():
    MADE.append(("reminder", call.input, call.at))


async def slow_statement():
    MADE.append(("slow", call.input, clock.now_ms))
    await HELD[0].wait()


@pytest.fixture(autouse=True)
def made():
    MADE.clear()
    HELD.clear()
    yield MADE


SUNDAY = utc("2026-01-04 12:00")
MONDAYNINE = utc("2026-01-05 09:00")


def handed(db, moment=SUNDAY):
    return Items(db, lambda: moment)


def weekly(db, customer="c1", **options):
    return run(handed(db).calendar(send_statement, {"customer": customer}, "0 9 * * 1", **options))


def row(db, id):
    return dict(run(db.all("SELECT * FROM tickwork_schedules WHERE name = ?1", (id,)))[0])


def live(db):
    return sorted(r["name"] for r in run(db.all("SELECT name FROM tickwork_schedules WHERE ended IS NULL")))


def test_a_replace_ends_the_old_schedule_and_the_new_one_is_called_in_its_place(db, made):
    old = weekly(db)
    new = run(handed(db).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 2"))
    assert new != old and new.startswith("send_statement@")
    ticks(db, [], MONDAYNINE, MONDAYNINE + DAY)
    assert made == [("statement", {"customer": "c1"}, MONDAYNINE + DAY)]
    assert live(db) == [new]



def test_the_old_one_ended_replaced_by_the_new_one_and_the_new_one_names_the_one_it_replaces(db):
    old = weekly(db)
    new = run(handed(db, SUNDAY + MINUTE).replace(old, send_reminder, {"customer": "c1"}, every="1h"))
    assert (row(db, old)["ended"], row(db, old)["replaced_by"], row(db, old)["removed_at"]) == (
        "replaced", new, SUNDAY + MINUTE)
    assert (row(db, new)["replaces"], row(db, new)["ended"], row(db, new)["due_at"]) == (
        old, None, SUNDAY + MINUTE + HOUR)


def test_the_label_carries_over_unless_a_new_one_is_given(db):
    old = weekly(db, label="Acme Corp")
    kept = run(handed(db).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 2"))
    relabelled = run(handed(db).replace(kept, send_statement, {"customer": "c1"}, cron="0 9 * * 3", label="Acme"))
    assert (row(db, kept)["label"], row(db, relabelled)["label"]) == ("Acme Corp", "Acme")


def test_replacing_an_id_not_going_on_is_refused_with_item_not_live_and_changes_nothing(db):
    old = weekly(db)
    run(handed(db).cancel(old))
    before = run(db.all("SELECT * FROM tickwork_schedules ORDER BY name"))
    for gone in (old, "send_statement@never-handed-over"):
        with pytest.raises(ScheduleError) as refused:
            run(handed(db).replace(gone, send_statement, {"customer": "c1"}, cron="0 9 * * 2"))
        assert refused.value.code == "item.not_live" and gone in refused.value.message
    assert run(db.all("SELECT * FROM tickwork_schedules ORDER BY name")) == before


def test_two_replaces_of_one_id_racing_make_one_new_schedule_live_and_the_other_is_told_item_not_live(db):
    old = weekly(db)

    async def race():
        return await asyncio.gather(
            handed(db).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 2"),
            handed(db).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 3"),
            return_exceptions=True)

    answers = asyncio.run(race())
    won = [a for a in answers if isinstance(a, str)]
    lost = [a for a in answers if isinstance(a, ScheduleError)]
    assert len(won) == 1 and [e.code for e in lost] == ["item.not_live"]
    assert live(db) == won and row(db, old)["replaced_by"] == won[0]


def test_the_replace_is_one_batch_so_a_failed_batch_leaves_the_old_one_going_and_no_new_one(db):
    old = weekly(db)
    faulty = Faulty(db, first_with(REPLACE_END))
    with pytest.raises(Exception, match="D1_ERROR"):
        run(handed(faulty).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 2"))
    assert live(db) == [old] and len(faulty.made) == 1


def test_a_replace_retried_after_its_batch_landed_is_told_item_not_live_and_the_new_one_stays_one(db):
    old = weekly(db)
    landed = Faulty(db, first_with(REPLACE_END), landed=True)
    with pytest.raises(Exception, match="D1_ERROR"):
        run(handed(landed).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 2"))
    with pytest.raises(ScheduleError, match="item.not_live|is no schedule going on"):
        run(handed(db).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 2"))
    assert live(db) == [row(db, old)["replaced_by"]]


def test_a_replace_with_the_same_schedule_is_refused(db):
    old = weekly(db)
    with pytest.raises(ScheduleError) as refused:
        run(handed(db).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 1", label="new label"))
    assert refused.value.code == "item.replace_unchanged"
    assert live(db) == [old]


def test_a_run_of_the_old_one_under_way_when_it_is_replaced_finishes_and_is_recorded(db, made):
    old = run(handed(db).calendar(slow_statement, {"customer": "c1"}, "0 9 * * 1"))

    async def replaced_while_running():
        HELD.append(asyncio.Event())
        from tickwork.testing import tick_at

        running = asyncio.create_task(tick_at([], MONDAYNINE, db))
        while not made:
            await asyncio.sleep(0)
        new = await handed(db, MONDAYNINE + 1).replace(old, send_statement, {"customer": "c1"}, cron="0 9 * * 2")
        HELD[0].set()
        await running
        return new

    new = asyncio.run(asyncio.wait_for(replaced_while_running(), 10))
    assert [(r["outcome"], r["due_at"]) for r in runs(db, old)] == [("succeeded", MONDAYNINE)]
    assert row(db, old)["ended"] == "replaced" and live(db) == [new]
    ticks(db, [], MONDAYNINE + DAY)
    assert [m[0] for m in made] == ["slow", "statement"]


def test_replace_many_replaces_each_item_in_one_batch_and_names_those_not_going_on(db):
    first, second, gone = weekly(db, "c1"), weekly(db, "c2"), weekly(db, "c3")
    run(handed(db).cancel(gone))
    done = run(handed(db).replace_many([
        {"replaces": first, "action": send_reminder, "input": {"customer": "c1"}, "every": "1h"},
        {"replaces": gone, "action": send_reminder, "input": {"customer": "c3"}, "every": "1h"},
        {"replaces": second, "action": send_reminder, "input": {"customer": "c2"}, "at": MONDAYNINE},
    ]))
    assert done.ids[1] is None and done.not_live == [gone] and done.left_over == []
    assert live(db) == sorted([done.ids[0], done.ids[2]])
    assert row(db, first)["replaced_by"] == done.ids[0] and row(db, done.ids[2])["replaces"] == second


def test_replace_many_within_the_statements_left_hands_back_what_it_did_not_reach(db):
    old = weekly(db)
    items = Items(db, lambda: SUNDAY, room=lambda: 1)  # a replace is two statements
    done = run(items.replace_many([{"replaces": old, "action": send_reminder, "input": {}, "every": "1h"}]))
    assert (done.ids, len(done.left_over)) == ([], 1) and live(db) == [old]
    with pytest.raises(ScheduleError) as refused:
        run(items.replace(old, send_reminder, {}, every="1h"))
    assert refused.value.code == "items.statements_used_up" and "2 D1 statements in one batch" in refused.value.message


def test_one_call_may_not_replace_an_id_twice(db):
    old = weekly(db)
    twice = [{"replaces": old, "action": send_reminder, "input": {"n": n}, "every": "1h"} for n in (1, 2)]
    with pytest.raises(ScheduleError) as refused:
        run(handed(db).replace_many(twice))
    assert refused.value.code == "item.replaced_twice" and live(db) == [old]


def test_a_replaced_schedule_handed_over_again_comes_back_as_a_cancelled_one_does(db):
    old = weekly(db)
    run(handed(db).replace(old, send_reminder, {}, every="1h"))
    assert weekly(db) == old and row(db, old)["ended"] is None and row(db, old)["replaced_by"] is None


async def move_to_tuesday():
    await items.replace(call.input["old"], send_statement, {"customer": "c1"}, cron="0 9 * * 2")


def test_a_run_replaces_a_schedule_through_tickwork_items(db, made):
    old = weekly(db)
    run(handed(db).once(move_to_tuesday, {"old": old}, SUNDAY + HOUR))
    ticks(db, [], SUNDAY + HOUR, MONDAYNINE, MONDAYNINE + DAY)
    assert made == [("statement", {"customer": "c1"}, MONDAYNINE + DAY)]
    assert row(db, old)["ended"] == "replaced"


def test_a_replace_by_a_schedule_that_already_ended_is_refused_and_the_old_one_stays_going(db, made):
    # never neither: the new id is one whose calls are made (a one-off at a moment already made),
    # which a hand-over leaves as it is, so the old one must not end either
    once = run(handed(db).once(send_statement, {"customer": "c1"}, MONDAYNINE))
    ticks(db, [], MONDAYNINE)
    old = weekly(db, "c2")
    with pytest.raises(ScheduleError) as refused:
        run(handed(db).replace(old, send_statement, {"customer": "c1"}, at=MONDAYNINE))
    assert refused.value.code == "item.replacement_ended" and once in refused.value.message
    assert live(db) == [old] and row(db, old)["replaced_by"] is None
    many = run(handed(db).replace_many([{"replaces": old, "action": send_statement, "input": {"customer": "c1"},
                                         "at": MONDAYNINE}]))
    assert (many.ids, many.not_live, many.replacement_ended) == ([None], [], [old])
    assert live(db) == [old]


def test_replacing_a_bad_id_is_refused_schedule_id_invalid_with_a_mend_for_a_replace(db):
    with pytest.raises(ScheduleError) as refused:
        run(handed(db).replace(7, send_statement, {"customer": "c1"}, cron="0 9 * * 2"))
    assert refused.value.code == "schedule.id_invalid" and "items.replace" in refused.value.mend


def test_the_new_one_counts_its_own_calls_from_nothing_the_old_ones_stay_the_old_ones(db, made):
    old = run(handed(db).every(send_statement, {"customer": "c1"}, "1h", times=3))
    ticks(db, [], SUNDAY + HOUR)
    new = run(handed(db, SUNDAY + HOUR).replace(old, send_statement, {"customer": "c1"}, every="1h", times=2))
    ticks(db, [], *(SUNDAY + k * HOUR for k in (2, 3, 4, 5)))
    assert (row(db, old)["calls_made"], row(db, new)["calls_made"], row(db, new)["ended"]) == (1, 2, "made_its_calls")
    assert len(made) == 3
