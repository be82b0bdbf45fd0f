"""The operator's command across many schedules (issue 18, "The command"): the label a schedule was
handed over with in `schedules`, `why` and `history` (its input on request), `history` without a
name for the runs across schedules, and `schedules` a page at a time, each page reading only
itself through an index."""

import pytest
from harness import send_statement
from helpers import MIGRATIONS, every, kept_from_before_0017, run, ticks
from test_the_operators_command import by_name, failing

from tickwork.adapters.sqlite import SQLiteDatabase
from tickwork.operator_store import SELECT_RECENT_RUNS, SELECT_SCHEDULES_PAGE, PAST_EVERY_RUN, OperatorStore
from tickwork.per_item import Items
from tickwork.times import HOUR, MINUTE, NEVER, utc
from tickwork_cli.cli import main

NINE = utc("2026-03-02 09:00")


def hand_over(app, customer, label=None, moment=NINE):
    return run(Items(app.db, lambda: moment).every(send_statement, {"customer": customer}, "15m", label=label))


def plan(app, sql, params) -> list[str]:
    return [row[3] for row in app.db._conn.execute("EXPLAIN QUERY PLAN " + sql, params)]


# -- the label, and the input on request ------------------------------------------------------

def test_schedules_shows_the_label_a_schedule_was_handed_over_with_and_its_input_only_when_asked(app):
    id = hand_over(app, "c7", label="Ada Lovelace")
    _, answer, _ = app.run("schedules", now=NINE)
    assert by_name(answer)[id]["label"] == "Ada Lovelace" and "input" not in by_name(answer)[id]
    _, answer, _ = app.run("schedules", "--input", now=NINE)
    assert by_name(answer)[id]["input"] == {"customer": "c7"}


def test_schedules_in_words_has_a_label_column_for_those_handed_over(app):
    id = hand_over(app, "c7", label="Ada Lovelace")
    _, text, _ = app.run("schedules", "--input", now=NINE, json_=False)
    assert "LABEL" in text and "INPUT" in text
    line = next(line for line in text.splitlines() if id in line)
    assert "Ada Lovelace" in line and '{"customer": "c7"}' in line


def test_why_shows_the_label_and_on_request_the_input(app):
    id = hand_over(app, "c7", label="Ada Lovelace")
    _, answer, _ = app.run("why", id, now=NINE)
    assert answer["label"] == "Ada Lovelace" and "input" not in answer
    _, text, _ = app.run("why", id, "--input", now=NINE, json_=False)
    assert "  label      Ada Lovelace" in text and '  input      {"customer": "c7"}' in text


def test_history_of_a_schedule_shows_its_label(app):
    id = hand_over(app, "c7", label="Ada Lovelace")
    app.tick([], NINE + 15 * MINUTE)
    _, answer, _ = app.run("history", id, "--input", now=NINE + 16 * MINUTE)
    assert (answer["label"], answer["input"], len(answer["runs"])) == ("Ada Lovelace", {"customer": "c7"}, 1)


# Controls and the marks that reorder a line (U+061C the Arabic letter mark among them), as a row
# written by another hand than tickwork's checks could hold them.
UNSHOWN = "\x1b]0;owned\x07\x1b[2J\x9b31m\u061c\u200f\u202e\u2067"


def shown_raw(text: str) -> list[str]:
    return [c for c in text if c != "\n" and (ord(c) < 32 or 0x7f <= ord(c) < 0xa0 or c in "\u061c\u200f\u202e\u2067")]


def test_a_label_and_an_input_from_the_database_reach_the_terminal_escaped_in_every_verb(app):
    id = hand_over(app, "c7", label="Ada")
    app.db._conn.execute("UPDATE tickwork_schedules SET label = ?1, input = json_object('customer', ?1)",
                         (f"Ada{UNSHOWN}",))
    app.tick([], NINE + 15 * MINUTE)
    now = NINE + 16 * MINUTE
    for argv in (["schedules", "--input"], ["why", id, "--input"], ["history", id, "--input"], ["history"]):
        for json_ in ([], ["--json"]):
            app.capsys.readouterr()
            code = main([*argv, "--sqlite", str(app.path), "--project", str(app.project), *json_], now=now)
            text = app.capsys.readouterr().out
            assert code == 0 and not shown_raw(text) and "Ada" in text, (argv, json_, text)


def test_a_declared_schedule_has_no_label(app):
    app.tick([every(15)], NINE)
    _, answer, _ = app.run("why", "census", now=NINE)
    assert answer["label"] is None


# -- history across schedules ------------------------------------------------------------------

def test_history_without_a_name_lists_the_runs_across_schedules_latest_tick_first_with_labels(app):
    id = hand_over(app, "c7", label="Ada")
    app.tick([every(15)], NINE)
    app.tick([every(15)], NINE + 15 * MINUTE, NINE + 30 * MINUTE)
    _, answer, _ = app.run("history", now=NINE + 31 * MINUTE)
    found = [(r["tick"]["ms"], r["schedule"], r["label"]) for r in answer["runs"]]
    assert [tick for tick, _, _ in found] == [NINE + 30 * MINUTE] * 2 + [NINE + 15 * MINUTE] * 2
    assert sorted(found) == sorted([(NINE + 30 * MINUTE, id, "Ada"), (NINE + 30 * MINUTE, "census", None),
                                    (NINE + 15 * MINUTE, id, "Ada"), (NINE + 15 * MINUTE, "census", None)])


def test_history_across_schedules_chooses_by_since_outcome_and_name_pattern(app):
    app.tick([every(15), failing("tidy")], NINE, NINE + 15 * MINUTE, NINE + 30 * MINUTE)
    now = NINE + 31 * MINUTE
    _, failed, _ = app.run("history", "--outcome", "failed", now=now)
    assert {r["schedule"] for r in failed["runs"]} == {"tidy"} and len(failed["runs"]) == 2
    _, since, _ = app.run("history", "--since", "10m", now=now)
    assert {(r["schedule"], r["tick"]["ms"]) for r in since["runs"]} == {
        ("census", NINE + 30 * MINUTE), ("tidy", NINE + 30 * MINUTE)}
    _, named, _ = app.run("history", "--name", "cen*", now=now)
    assert {r["schedule"] for r in named["runs"]} == {"census"} and len(named["runs"]) == 2


def test_history_across_schedules_pages_by_its_cursor_reaching_every_run_once(app):
    app.tick([every(15), every(15, name="tidy")], *(NINE + k * 15 * MINUTE for k in range(6)))
    now = NINE + 2 * HOUR
    _, everything, _ = app.run("history", "--limit", "100", now=now)
    seen, before = [], []
    while True:
        _, page, _ = app.run("history", "--limit", "3", *before, now=now)
        seen += [r["id"] for r in page["runs"]]
        if page["next_before"] is None:
            break
        before = ["--before", page["next_before"]]
    assert seen == [r["id"] for r in everything["runs"]] and len(seen) == 10


def test_history_across_schedules_in_words_names_each_schedule_and_the_next_page(app):
    app.tick([every(15)], NINE, NINE + 15 * MINUTE, NINE + 30 * MINUTE)
    _, text, _ = app.run("history", "--limit", "1", now=NINE + 31 * MINUTE, json_=False)
    assert text.splitlines()[0] == "1 run across schedules, latest tick first"
    assert "TICK" in text and "SCHEDULE" in text
    assert "2026-03-02 09:30 UTC  census" in text
    assert "more: tickwork history --before " in text


def test_the_runs_across_schedules_are_read_a_page_of_each_form_of_id_and_no_scan(app):
    found = plan(app, SELECT_RECENT_RUNS, (NINE, *PAST_EVERY_RUN, "failed", "c*", 20))
    assert "SEARCH r USING PRIMARY KEY (id>? AND id<?)" in found  # a tick's ids, from migration 0017 on
    assert "SEARCH r USING INDEX tickwork_runs_by_tick (tick_at>? AND (tick_at,id)<(?,?))" in found  # others
    assert not [step for step in found if step.startswith("SCAN r")]


# census runs at 09:15, 09:30 and 09:45 (ids of a tick's form); tidy kept three from before
# migration 0017, at 09:10, 09:30 and 09:50, the ids sorting against their ticks.
BOTH_FORMS = [("ffff" * 8, NINE + 10 * MINUTE, "succeeded"), ("0000" * 8, NINE + 30 * MINUTE, "failed"),
              ("7f3a" * 8, NINE + 50 * MINUTE, "succeeded")]


def with_records_of_both_forms(app) -> list[str]:
    """The records' ids, the latest tick first (of one tick, the greater id first)."""
    app.tick([every(15)], *(NINE + k * 15 * MINUTE for k in range(4)))
    kept_from_before_0017(app.db, "tidy", *BOTH_FORMS)
    return [r["id"] for r in app.rows("SELECT id FROM tickwork_runs ORDER BY tick_at DESC, id DESC")]


def test_history_across_schedules_gives_records_made_before_migration_0017_and_after_in_tick_order(app):
    ids = with_records_of_both_forms(app)
    _, answer, _ = app.run("history", "--limit", "100", now=NINE + HOUR)
    assert [r["id"] for r in answer["runs"]] == ids and len(ids) == 6
    assert [r["schedule"] for r in answer["runs"]] == ["tidy", "census", "census", "tidy", "census", "tidy"]


def test_history_across_schedules_pages_across_records_of_both_forms_reaching_each_once_in_tick_order(app):
    ids = with_records_of_both_forms(app)
    seen, before = [], []
    while True:
        _, page, _ = app.run("history", "--limit", "2", *before, now=NINE + HOUR)
        seen += [r["id"] for r in page["runs"]]
        if page["next_before"] is None:
            break
        before = ["--before", page["next_before"]]
    assert seen == ids


def test_history_across_schedules_since_a_time_gives_the_records_of_both_forms_from_that_tick_on(app):
    ids = with_records_of_both_forms(app)
    _, answer, _ = app.run("history", "--since", "2026-03-02T09:30:00Z", "--limit", "100", now=NINE + HOUR)
    assert [r["id"] for r in answer["runs"]] == ids[:4]


def test_history_across_schedules_since_a_time_before_1970_gives_every_record_of_both_forms(app):
    ids = with_records_of_both_forms(app)
    _, answer, _ = app.run("history", "--since", "1969-12-31T00:00Z", "--limit", "100", now=NINE + HOUR)
    assert [r["id"] for r in answer["runs"]] == ids


def test_history_across_schedules_by_outcome_finds_a_record_made_before_migration_0017(app):
    with_records_of_both_forms(app)
    _, failed, _ = app.run("history", "--outcome", "failed", now=NINE + HOUR)
    assert [r["id"] for r in failed["runs"]] == ["0000" * 8]


def test_outcome_name_and_before_with_a_schedules_name_are_refused_in_one_line(app):
    app.tick([every(15)], NINE)
    code, _, err = app.run("history", "census", "--outcome", "failed", now=NINE)
    assert code == 1 and err.startswith("tickwork history: --outcome, --name and --before are for the runs across")


def test_a_cursor_that_no_page_gave_is_refused_in_one_line(app):
    code, _, err = app.run("history", "--before", "yesterday", now=NINE)
    assert code == 1 and "is no cursor" in err


# -- schedules a page at a time ----------------------------------------------------------------

def test_schedules_pages_in_name_order_each_page_after_the_last_name_of_the_one_before(app):
    ids = sorted(hand_over(app, f"c{k}") for k in range(7))
    pages, after = [], []
    while True:
        _, page, _ = app.run("schedules", "--limit", "3", *after, now=NINE)
        pages.append([s["name"] for s in page["schedules"]])
        if page["next_after"] is None:
            break
        after = ["--after", page["next_after"]]
    assert pages == [ids[:3], ids[3:6], ids[6:]]


def test_a_page_is_filled_by_the_rows_that_pass_its_filters(app):
    app.tick([every(15), every(60, name="tidy")], NINE)
    hand_over(app, "c1")
    app.run("pause", "tidy", now=NINE)
    _, page, _ = app.run("schedules", "--state", "handed-over", "--limit", "1", now=NINE)
    assert [s["handed_over"] for s in page["schedules"]] == [True]
    _, page, _ = app.run("schedules", "--state", "paused", "--kind", "schedule", "--limit", "1", now=NINE)
    assert [s["name"] for s in page["schedules"]] == ["tidy"]


def test_schedules_in_words_says_how_to_reach_the_next_page(app):
    ids = sorted(hand_over(app, f"c{k}") for k in range(2))
    _, text, _ = app.run("schedules", "--limit", "1", now=NINE, json_=False)
    assert f"more: tickwork schedules --after {ids[0]}" in text


def test_a_page_of_schedules_is_read_through_the_names_index_from_the_cursor(app):
    found = plan(app, SELECT_SCHEDULES_PAGE, ("send_statement@", None, None, None, 100, None, "", "\U0010ffff"))
    assert found[0] == "SEARCH s USING INDEX sqlite_autoindex_tickwork_schedules_1 (name>? AND name<?)"
    assert not any("TEMP B-TREE FOR ORDER BY" in step for step in found)


# -- one round trip a verb ---------------------------------------------------------------------

def test_each_verb_is_one_round_trip_so_one_wrangler_process_with_remote(app):
    from tickwork.operator_store import OperatorStore

    app.tick([every(15)], NINE)
    app.db._conn.executescript(f"""
        INSERT INTO tickwork_events (id, name, body, emitted_at) VALUES ('e1', 'shipped', '{{}}', {NINE});
        INSERT INTO tickwork_deliveries (id, event, queue, state, updated_at) VALUES ('d1', 'e1', 'OUT', 'failed', {NINE});
    """)
    store = OperatorStore(app.db)
    reads = [store.schedules_page(), store.history("census", None, False, 20), store.explain("census"),
             store.status(), store.deliveries(True, 100), store.recent_runs(), store.change("pause", "census", "a", NINE)]
    for read in reads:
        before = app.db.round_trips
        run(read)
        assert app.db.round_trips - before == 1, read


def test_a_page_that_ends_the_list_offers_no_next_page(app):
    ids = sorted(hand_over(app, f"c{k}") for k in range(4))
    _, first, _ = app.run("schedules", "--limit", "2", now=NINE)
    _, last, _ = app.run("schedules", "--limit", "2", "--after", first["next_after"], now=NINE)
    assert (first["next_after"], [s["name"] for s in last["schedules"]], last["next_after"]) == (ids[1], ids[2:], None)


@pytest.mark.parametrize("since", ["99999999d", "9999999999999999", "0001-01-01T00:00+14:00"])
def test_a_since_outside_the_years_1_to_9999_is_refused_in_one_line(app, since):
    code, _, err = app.run("history", "--since", since, now=NINE)
    assert code == 1 and err.count("\n") == 1 and f"`{since}`" in err


def test_a_cursor_past_any_tick_is_refused_in_one_line(app):
    code, _, err = app.run("history", "--before", f"{2**64}/0123", now=NINE)
    assert code == 1 and err.count("\n") == 1 and "is no cursor" in err


def columns(text: str) -> int:
    """The columns a terminal gives `text`: two for a wide character, none for a joiner."""
    import unicodedata

    return sum(0 if unicodedata.category(c) == "Cf" else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def test_the_label_column_lines_up_for_wide_characters_and_escaped_controls(app):
    hand_over(app, "c1", label="顧客 Grace")
    hand_over(app, "c2", label="Ada")
    app.db._conn.execute("UPDATE tickwork_schedules SET label = 'Eve\u202e' WHERE name = ?1", (hand_over(app, "c3"),))
    _, text, _ = app.run("schedules", now=NINE, json_=False)
    rows = [line for line in text.splitlines() if "@" in line]
    assert len(rows) == 3 and len({columns(line[: line.index(" every ")]) for line in rows}) == 1, text


def test_input_without_a_schedules_name_is_refused_not_ignored(app):
    code, _, err = app.run("history", "--input", now=NINE)
    assert code == 1 and err.count("\n") == 1 and "--input" in err


class BindsAsTheWorkerDoes(SQLiteDatabase):
    """The CPython store, refusing what the Workers runtime cannot bind for D1: an integer past
    2**53 - 1 crosses to JavaScript as a BigInt, which D1 refuses."""

    async def all(self, sql, params=()):
        past = [value for value in params if isinstance(value, int) and abs(value) > NEVER]
        if past:
            raise TypeError(f"D1_TYPE_ERROR: Type 'bigint' not supported for value '{past[0]}'")
        return await super().all(sql, params)


def test_the_runs_across_schedules_from_the_newest_bind_only_numbers_d1_takes(tmp_path):
    db = BindsAsTheWorkerDoes(tmp_path / "d1.sqlite")
    db.apply_migrations(MIGRATIONS)
    ticks(db, [every(15)], NINE, NINE + 15 * MINUTE, NINE + 30 * MINUTE)  # the first tick only seeds
    assert [r["tick_at"] for r in run(OperatorStore(db).recent_runs())] == [NINE + 30 * MINUTE, NINE + 15 * MINUTE]
