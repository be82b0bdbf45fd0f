"""A schedule handed over at run time carries a label (issue 18): whom or what it is for, as the app
says it (`items.calendar(..., label="ada")`), kept on its row for the operator, checked like every
other argument (`schedule.label_invalid`, nothing written), and no part of its id."""

import pytest
from harness import send_statement
from helpers import migrate_from, migrated_before, run, ticks

from tickwork import ScheduleError
from tickwork.per_item import LONGEST_LABEL, Items
from tickwork.times import HOUR, utc

SUNDAY = utc("2026-01-04 12:00")
MONDAY_NINE = utc("2026-01-05 09:00")


def handed(db):
    return Items(db, lambda: SUNDAY)


def labels(db) -> dict:
    rows = run(db.all("SELECT name, label FROM tickwork_schedules"))
    return {row["name"]: row["label"] for row in rows}


def test_a_calendar_handed_over_with_a_label_keeps_it_on_its_row(db):
    id = run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="Ada Lovelace"))
    assert labels(db) == {id: "Ada Lovelace"}


def test_every_and_once_take_a_label_too(db):
    every = run(handed(db).every(send_statement, {"account": 4}, "15m", label="account 4"))
    once = run(handed(db).once(send_statement, {"order": 9}, SUNDAY + HOUR, label="order 9"))
    assert labels(db) == {every: "account 4", once: "order 9"}


def test_a_schedule_handed_over_without_a_label_has_none(db):
    id = run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1"))
    assert labels(db) == {id: None}


def test_the_label_is_no_part_of_the_id(db):
    first = run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="Ada"))
    bare = run(Items(db, lambda: SUNDAY).calendar(send_statement, {"customer": 7}, "0 9 * * 1"))
    assert first == bare


def test_handing_a_live_schedule_over_again_with_another_label_keeps_the_first(db):
    id = run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="Ada"))
    run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="Grace"))
    assert labels(db) == {id: "Ada"}


def test_one_cancelled_and_handed_over_again_takes_the_label_it_comes_back_with(db):
    id = run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="Ada"))
    run(handed(db).cancel(id))
    run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="Ada King"))
    assert labels(db) == {id: "Ada King"}


def test_calendar_many_labels_each_input_by_a_function_of_it(db):
    done = run(handed(db).calendar_many(send_statement, [{"customer": 1}, {"customer": 2}], "0 9 * * 1",
                                        label=lambda input: f"customer {input['customer']}"))
    assert labels(db) == {done.ids[0]: "customer 1", done.ids[1]: "customer 2"}


def test_every_many_and_once_many_take_one_label_for_all(db):
    every = run(handed(db).every_many(send_statement, [1, 2], "1h", label="sync"))
    once = run(handed(db).once_many(send_statement, [3], SUNDAY + HOUR, label="remind"))
    assert labels(db) == {**{id: "sync" for id in every.ids}, once.ids[0]: "remind"}


def test_hand_over_takes_each_items_label_from_its_dict(db):
    done = run(handed(db).hand_over([
        {"action": send_statement, "input": 1, "cron": "0 9 * * 1", "label": "one"},
        {"action": send_statement, "input": 2, "every": "1h", "label": "two"},
        {"action": send_statement, "input": 3, "at": SUNDAY + HOUR},
    ]))
    assert labels(db) == dict(zip(done.ids, ["one", "two", None]))


def test_a_labelled_schedule_runs_as_one_without_a_label(db):
    run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="Ada"))
    ticks(db, [], MONDAY_NINE)
    [record] = run(db.all("SELECT outcome FROM tickwork_runs"))
    assert record == {"outcome": "succeeded"}


@pytest.mark.parametrize("label", [7, b"ada", "", "x" * (LONGEST_LABEL + 1), "ada\x1b[2J", "ada\nking", "\ud800",
                                   "ada\u202eking", "ada\x85", "ada\u061cking", "ada\u2066king", "   ", "\u3000\u00a0",
                                   "\u200b", " \u2060\ufeff "])
def test_a_label_that_is_not_a_short_line_of_printable_text_is_label_invalid_and_nothing_is_written(db, label):
    with pytest.raises(ScheduleError) as raised:
        run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label=label))
    assert raised.value.code == "schedule.label_invalid"
    assert labels(db) == {}


def test_a_label_of_line_breaks_only_is_told_it_holds_a_line_break_not_that_it_is_blank(db):
    with pytest.raises(ScheduleError) as raised:
        run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="\n\n"))
    assert "line break" in raised.value.message


def test_a_bad_label_in_bulk_says_which_item_and_writes_none(db):
    with pytest.raises(ScheduleError) as raised:
        run(handed(db).hand_over([
            {"action": send_statement, "input": 1, "every": "1h", "label": "fine"},
            {"action": send_statement, "input": 2, "every": "1h", "label": 5},
        ]))
    assert raised.value.code == "schedule.label_invalid" and "item 1 of 2" in raised.value.message
    assert labels(db) == {}


@pytest.mark.parametrize("label", ["Ada\u00a0Lovelace", "👩\u200d💻 team", "Zoë", "顧客 7"])
def test_a_label_of_any_script_with_spaces_and_joined_emoji_is_kept(db, label):
    id = run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label=label))
    assert labels(db) == {id: label}


def test_a_label_of_the_longest_length_is_kept(db):
    id = run(handed(db).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label="é" * LONGEST_LABEL))
    assert labels(db) == {id: "é" * LONGEST_LABEL}


def test_a_schedule_handed_over_before_migration_0016_keeps_its_row_and_has_no_label():
    db = migrated_before("0016")
    db._conn.execute(
        "INSERT INTO tickwork_schedules (name, action, timing, input, form, every_ms, due_at, first_tick, last_tick)"
        " VALUES ('send_statement@aa', 'app:send_statement', '{}', '{\"customer\": 7}', 'every 3600000', 3600000,"
        f" {MONDAY_NINE}, {SUNDAY}, {SUNDAY})")
    migrate_from(db, "0016")
    [row] = run(db.all("SELECT name, input, due_at, label FROM tickwork_schedules"))
    assert row == {"name": "send_statement@aa", "input": '{"customer": 7}', "due_at": MONDAY_NINE, "label": None}


def test_no_index_names_the_label_so_a_tick_writes_no_more_for_it(db):
    """A column no index names costs a statement that writes its row no index entry: a due run,
    a skip and a nothing-due tick write the b-trees they wrote before migration 0016."""
    indexes = run(db.all("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tickwork_schedules'"))
    assert indexes and not [row["name"] for row in indexes if "label" in (row["sql"] or "")]


def test_a_labelled_schedules_due_run_writes_the_rows_an_unlabelled_ones_does(db):
    from helpers import open_store

    def rows_written(label):
        store = open_store()
        run(Items(store, lambda: SUNDAY).calendar(send_statement, {"customer": 7}, "0 9 * * 1", label=label))
        before = store.rows_written
        ticks(store, [], MONDAY_NINE)
        return store.rows_written - before

    assert rows_written("Ada Lovelace") == rows_written(None)


def test_a_label_goes_with_retries_and_a_limit_on_every_call_and_each_item_in_bulk(db):
    items = handed(db)
    one = run(items.every(send_statement, {"account": 4}, "15m", retry="2 after 1m", limit="2m", label="account 4"))
    bulk = run(items.hand_over([{"action": send_statement, "input": {"account": 5}, "cron": "0 9 * * 1",
                                 "retry": "2 after 1m", "limit": "2m", "label": "account 5"}]))
    many = run(items.calendar_many(send_statement, [{"account": 6}], "0 9 * * 1", retry="2 after 1m",
                                   label=lambda item: f"account {item['account']}"))
    assert labels(db) == {one: "account 4", bulk.ids[0]: "account 5", many.ids[0]: "account 6"}
    timings = {r["name"]: r["timing"] for r in run(db.all("SELECT name, timing FROM tickwork_schedules"))}
    assert all('"retry_attempts": 2' in timings[id] for id in (one, bulk.ids[0], many.ids[0]))
    assert '"limit_ms": 120000' in timings[one] and '"limit_ms": 120000' in timings[bulk.ids[0]]
