"""Issue 25, "Skip dates": dates, in a calendar's zone, on which it does not run, declared with
the calendar (`skip: 2026-12-25`) or as a named list shared by several (`[tool.tickwork.dates]`,
`skip: holidays`). A due time on one is recorded skipped `skip_date`, counted as not missed; a
late call owed from before is for the latest occurrence on no skip date; backfill never makes
them; `why` and the console's next due times leave them out and say so."""

import json

import pytest
from helpers import Inputs, open_store, run, runs, state, ticks
from test_build import ACTIONS, codes, project
from test_missed_occurrences_are_counted import covers
from test_retries_backfill_and_alerts_together import connections, race
from test_schedules_handed_over import handed, send_statement

from tickwork import ScheduleError
from tickwork.kinds.calendar import Calendar, cron_calendar
from tickwork.kinds.forms import timing_of
from tickwork.model import Code, Outcome, Schedule
from tickwork.operator_store import OperatorStore
from tickwork.times import MINUTE, utc
from tickwork_build.build import build

HOLIDAYS = (("2026-12-25", "holidays"), ("2027-01-01", "holidays"))


def daily(zone="UTC", skip=HOLIDAYS, cron="0 9 * * *", name="statement", **rules):
    return Schedule(name, Calendar(cron_calendar(cron, zone, **rules), None, skip), Inputs())


def moments(db, name="statement"):
    return [(r["at"], r["outcome"], r["code"]) for r in runs(db, name)]


def test_a_due_time_on_a_skip_date_is_recorded_skipped_skip_date_and_the_next_day_runs(db):
    ticks(db, [daily()], utc("2026-12-24 12:00"), utc("2026-12-25 09:00"), utc("2026-12-26 09:00"))
    assert moments(db) == [(utc("2026-12-25 09:00"), Outcome.SKIPPED, Code.SKIP_DATE),
                           (utc("2026-12-26 09:00"), Outcome.SUCCEEDED, None)]
    skip = runs(db, "statement")[0]
    assert skip["detail"] == "2026-12-25 skipped: holidays"
    assert covers(skip) == (None, None, None, None)  # not missed


def test_a_skip_date_given_on_its_own_says_so(db):
    ticks(db, [daily(skip=(("2026-12-25", ""),))], utc("2026-12-24 12:00"), utc("2026-12-25 09:00"))
    assert runs(db, "statement")[0]["detail"] == "2026-12-25 skipped: a skip date of its own"


def test_after_an_outage_the_late_call_is_for_the_latest_occurrence_on_no_skip_date(db):
    """Down from the 24th to the 26th, itself a skip date: the 24th's call is made late, and the
    25th and 26th are not counted missed."""
    boxing = HOLIDAYS + (("2026-12-26", "holidays"),)
    ticks(db, [daily(skip=boxing)], utc("2026-12-23 12:00"), utc("2026-12-26 12:00"))
    [late] = runs(db, "statement")
    assert (late["at"], late["outcome"]) == (utc("2026-12-24 09:00"), Outcome.SUCCEEDED)
    assert covers(late) == (None, None, None, None)


def test_occurrences_on_skip_dates_are_not_counted_missed(db):
    ticks(db, [daily()], utc("2026-12-20 12:00"), utc("2026-12-28 12:00"))
    [late] = runs(db, "statement")
    # the 21st to the 28th: eight occurrences, the 25th's not missed
    assert covers(late) == (7, utc("2026-12-21 09:00"), utc("2026-12-28 09:00"), 0)


def test_an_outage_over_skip_dates_alone_records_one_skip_and_no_occurrence_missed(db):
    ticks(db, [daily(skip=HOLIDAYS + (("2026-12-26", "holidays"),))], utc("2026-12-24 12:00"),
          utc("2026-12-26 12:00"))
    [skip] = runs(db, "statement")
    assert (skip["at"], skip["code"], covers(skip)[0]) == (utc("2026-12-26 09:00"), Code.SKIP_DATE, None)


def test_the_date_is_read_in_the_calendars_zone_not_in_utc(db):
    """Midnight of the 25th in Berlin is 23:00 UTC on the 24th: skipped; midnight of the 26th runs."""
    midnight = daily("Europe/Berlin", cron="0 0 * * *")
    ticks(db, [midnight], utc("2026-12-24 12:00"), utc("2026-12-24 23:00"), utc("2026-12-25 23:00"))
    assert moments(db) == [(utc("2026-12-24 23:00"), Outcome.SKIPPED, Code.SKIP_DATE),
                           (utc("2026-12-25 23:00"), Outcome.SUCCEEDED, None)]


def test_a_skip_date_on_the_day_clocks_spring_forward_skips_the_shifted_call(db):
    """02:30 does not exist in Berlin on 2026-03-29: shifted to 03:00 CEST (01:00 UTC), on the skip date."""
    night = daily("Europe/Berlin", skip=(("2026-03-29", "dst"),), cron="30 2 * * *")
    ticks(db, [night], utc("2026-03-28 12:00"), utc("2026-03-29 01:00"), utc("2026-03-30 00:30"))
    assert moments(db) == [(utc("2026-03-29 01:00"), Outcome.SKIPPED, Code.SKIP_DATE),
                           (utc("2026-03-30 00:30"), Outcome.SUCCEEDED, None)]


def test_a_skip_date_on_the_day_clocks_fall_back_skips_both_repeated_calls(db):
    """02:30 happens twice in Berlin on 2026-10-25 (00:30 and 01:30 UTC): under `repeated: both`
    both are skipped; the next day's runs."""
    night = daily("Europe/Berlin", skip=(("2026-10-25", "dst"),), cron="30 2 * * *", repeated="both")
    ticks(db, [night], utc("2026-10-24 12:00"), utc("2026-10-25 00:30"), utc("2026-10-25 01:30"),
          utc("2026-10-26 01:30"))
    assert moments(db) == [(utc("2026-10-25 00:30"), Outcome.SKIPPED, Code.SKIP_DATE),
                           (utc("2026-10-25 01:30"), Outcome.SKIPPED, Code.SKIP_DATE),
                           (utc("2026-10-26 01:30"), Outcome.SUCCEEDED, None)]


def test_a_paused_calendar_on_a_skip_date_is_skipped_paused(db):
    from tickwork.operator_store import OperatorStore

    ticks(db, [daily()], utc("2026-12-24 12:00"))
    run(OperatorStore(db).change("pause", "statement", "ana", utc("2026-12-24 12:01")))
    ticks(db, [daily()], utc("2026-12-25 09:00"))
    assert moments(db)[-1][2] == Code.PAUSED


def test_racing_tickers_record_a_skip_date_due_time_skipped_once(tmp_path):
    dbs = connections(tmp_path / "d1.sqlite")
    ticks(dbs[0], [daily()], utc("2026-12-24 12:00"))
    race(dbs, [daily()], utc("2026-12-25 09:00"))
    race(dbs, [daily()], utc("2026-12-25 09:01"))
    assert moments(dbs[0]) == [(utc("2026-12-25 09:00"), Outcome.SKIPPED, Code.SKIP_DATE)]


def test_a_backfill_over_a_skip_date_leaves_it_out(db):
    ticks(db, [daily()], utc("2026-12-20 12:00"), utc("2026-12-27 12:00"))
    store = OperatorStore(db)
    run(store.backfill("statement", utc("2026-12-23 00:00"), utc("2026-12-26 23:00"), "ana", utc("2026-12-27 12:01")))
    ticks(db, [daily()], *[utc("2026-12-27 12:02") + k * MINUTE for k in range(6)])
    made = sorted(at for at, outcome, code in moments(db) if outcome == Outcome.SUCCEEDED and at < utc("2026-12-27"))
    assert made == [utc("2026-12-23 09:00"), utc("2026-12-24 09:00"), utc("2026-12-26 09:00")]


def test_the_backfill_plan_leaves_skip_dates_out_and_says_so():
    from tickwork.backfill import to_backfill

    timing = daily().timing
    found = to_backfill(timing, utc("2026-12-28 09:00"), 0, utc("2026-12-23 00:00"), utc("2026-12-26 23:00"))
    assert [c.at for c in found] == [utc("2026-12-23 09:00"), utc("2026-12-24 09:00"), utc("2026-12-26 09:00")]
    assert timing.skipped_within(utc("2026-12-23 00:00"), utc("2026-12-26 23:00")) == ["2026-12-25 skipped: holidays"]


def test_a_tick_with_a_skip_date_calendar_not_due_stays_two_statements_one_row_written(db):
    from test_statements_per_tick import FIRST_READ, cost

    calendars = [daily(name=f"c{n}") for n in range(10)]
    ticks(db, calendars, utc("2026-12-24 12:00"))
    assert cost(db, utc("2026-12-25 08:30"), calendars) == (FIRST_READ, 1, 0)
    written = db.rows_written
    ticks(db, calendars, utc("2026-12-25 08:31"))
    assert db.rows_written - written == 1  # the app's row, marked


# -- declared --------------------------------------------------------------------------------

DATES = '\n[tool.tickwork.dates]\nholidays = [2026-12-25, "2027-01-01"]\n'
SKIPPING = """\
    calendar statement {
        cron: 0 9 * * *
        zone: Europe/Berlin
        skip: holidays, 2026-07-04
        run: queue_chore_census()
    }
"""


def test_a_calendar_declared_with_skip_names_a_list_and_dates_mixed(tmp_path):
    [spec] = build(project(tmp_path, {"s.jadpo": SKIPPING}, tool=DATES)).schedules
    entry = spec.manifest_entry()
    assert entry["skip"] == {"2026-07-04": "", "2026-12-25": "holidays", "2027-01-01": "holidays"}
    assert timing_of(entry).skipped_on(utc("2026-12-25 08:00")) == "2026-12-25 skipped: holidays"


def test_a_calendar_without_skip_writes_none_into_the_manifest(tmp_path):
    [spec] = build(project(tmp_path, {"s.jadpo": SKIPPING.replace("        skip: holidays, 2026-07-04\n", "")},
                           tool=DATES)).schedules
    assert "skip" not in spec.manifest_entry()


@pytest.mark.parametrize("skip, code", [
    ("2026-02-30", "schedule.skip_date_invalid"),
    ("25/12/2026", "schedule.skip_date_invalid"),
    ("holidayz", "schedule.skip_list_unknown"),
])
def test_a_bad_skip_fails_the_build_with_its_code_at_its_line(tmp_path, skip, code):
    text = SKIPPING.replace("skip: holidays, 2026-07-04", f"skip: holidays, {skip}")
    assert codes(project(tmp_path, {"s.jadpo": text}, tool=DATES)) == [(code, "statement", 4)]


def test_a_list_over_the_bound_fails_the_build(tmp_path):
    from datetime import date, timedelta

    days = ", ".join(f'"{date(2030, 1, 1) + timedelta(days=k)}"' for k in range(1001))  # a thousand and one
    found = codes(project(tmp_path, {"s.jadpo": SKIPPING}, tool=f"\n[tool.tickwork.dates]\nholidays = [{days}]\n"))
    assert found == [("schedule.skip_dates_too_many", None, 5)]  # the calendar naming it is not told as well


def test_a_calendar_over_the_bound_with_its_own_dates_and_a_list_fails_the_build(tmp_path):
    from datetime import date, timedelta

    days = ", ".join(f'"{date(2030, 1, 1) + timedelta(days=k)}"' for k in range(999))
    text = SKIPPING.replace("skip: holidays, 2026-07-04", "skip: holidays, 2026-07-04, 2026-07-05")
    assert codes(project(tmp_path, {"s.jadpo": text}, tool=f"\n[tool.tickwork.dates]\nholidays = [{days}]\n")) == [
        ("schedule.skip_dates_too_many", "statement", 4)]


@pytest.mark.parametrize("dates", ['holidays = "2026-12-25"', 'holidays = ["2026-12-32"]'])
def test_a_bad_list_of_dates_fails_the_build_at_its_line_in_pyproject(tmp_path, dates):
    found = problems_of(project(tmp_path, {"s.jadpo": SKIPPING}, tool=f"\n[tool.tickwork.dates]\n{dates}\n"))
    assert [(p.code, p.file, p.line) for p in found][0][1:] == ("pyproject.toml", 5)
    assert found[0].code in ("settings.dates_invalid", "schedule.skip_date_invalid")


def problems_of(root):
    from test_build import problems

    return problems(root)


def test_the_decorator_takes_skip_as_jadpo_does(tmp_path):
    python = ACTIONS + (
        "\nfrom tickwork import calendar\n"
        'calendar("0 9 * * *", zone="Europe/Berlin", skip=["holidays", "2026-07-04"], name="statement")'
        "(queue_chore_census)\n"
    )
    from_python = build(project(tmp_path / "b", {}, actions=python, tool=DATES)).schedules
    from_jadpo = build(project(tmp_path / "a", {"s.jadpo": SKIPPING}, tool=DATES)).schedules
    assert [s.model_dump(exclude={"source"}) for s in from_python] == [
        s.model_dump(exclude={"source"}) for s in from_jadpo]


# -- handed over -----------------------------------------------------------------------------

EVE = utc("2026-12-24 12:00")


def test_a_calendar_handed_over_with_skip_dates_is_skipped_on_them(db):
    id = run(handed(db, EVE).calendar(send_statement, None, "0 9 * * *", skip=["2026-12-25"]))
    ticks(db, [], utc("2026-12-25 09:00"), utc("2026-12-26 09:00"))
    assert moments(db, id) == [(utc("2026-12-25 09:00"), Outcome.SKIPPED, Code.SKIP_DATE),
                               (utc("2026-12-26 09:00"), Outcome.SUCCEEDED, None)]


def test_calendar_many_and_hand_over_take_skip_too(db):
    bulk = run(handed(db, EVE).calendar_many(send_statement, [1, 2], "0 9 * * *", skip=["2026-12-25"]))
    mixed = run(handed(db, EVE).hand_over([{"action": send_statement, "input": 3, "cron": "0 9 * * *",
                                            "skip": ["2026-12-25"]}]))
    ticks(db, [], utc("2026-12-25 09:00"))
    for id in bulk.ids + mixed.ids:
        assert [r["code"] for r in runs(db, id)] == [Code.SKIP_DATE]
        assert json.loads(state(db, id).timing)["skip"] == {"2026-12-25": ""}


def test_a_calendar_handed_over_without_skip_keeps_its_id_from_before(db):
    id = run(handed(db, EVE).calendar(send_statement, None, "0 9 * * *"))
    assert "skip" not in json.loads(state(db, id).timing)


@pytest.mark.parametrize("skip", [["2026-02-30"], ["christmas"], [20261225]])
def test_bad_skip_dates_handed_over_are_refused_with_their_code(db, skip):
    with pytest.raises(ScheduleError) as refused:
        run(handed(db, EVE).calendar(send_statement, None, "0 9 * * *", skip=skip))
    assert refused.value.code == "schedule.skip_date_invalid"
    assert "a schedule handed over takes dates alone" in refused.value.mend


def test_over_a_thousand_skip_dates_handed_over_are_refused(db):
    from datetime import date, timedelta

    with pytest.raises(ScheduleError) as refused:
        run(handed(db, EVE).calendar(send_statement, None, "0 9 * * *",
                                     skip=[date(2030, 1, 1) + timedelta(days=k) for k in range(1001)]))
    assert refused.value.code == "schedule.skip_dates_too_many"


# -- said ------------------------------------------------------------------------------------

def test_why_gives_the_next_due_time_past_the_skip_dates_and_says_so(db):
    from tickwork_cli.verbs import why

    id = run(handed(db, EVE).calendar(send_statement, None, "0 9 * * *", skip=["2026-12-25", "2026-12-26"]))
    ticks(db, [], utc("2026-12-24 12:01"))
    answer = run(why(OperatorStore(db), utc("2026-12-24 13:00"), id, None))
    assert answer.data["next_due"]["ms"] == utc("2026-12-27 09:00")
    assert answer.data["next_due_why"].endswith(
        "2026-12-25 skipped: a skip date of its own, 2026-12-26 skipped: a skip date of its own")


def test_the_console_leaves_skip_dates_out_of_the_next_due_times_and_says_so(db):
    from test_the_console_pages import shown
    from console_fixtures import PREFIX, ask

    id = run(handed(db, EVE).calendar(send_statement, None, "0 9 * * *", skip=["2026-12-25"]))
    ticks(db, [], utc("2026-12-24 12:01"))
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name={id}", now=utc("2026-12-24 13:00")))
    assert "next due 2026-12-26 09:00 UTC" in page and "2026-12-25 09:00 UTC" not in page
    assert "skipped 2026-12-25 skipped: a skip date of its own" in page


def test_a_dry_run_backfill_of_a_calendar_handed_over_leaves_its_skip_dates_out_and_says_so(db):
    from tickwork_cli.deliveries_and_backfills import backfill

    id = run(handed(db, utc("2026-12-20 12:00")).calendar(send_statement, None, "0 9 * * *", skip=["2026-12-25"]))
    ticks(db, [], utc("2026-12-20 12:01"), utc("2026-12-27 12:00"))
    answer = run(backfill(OperatorStore(db), utc("2026-12-27 12:01"), id, utc("2026-12-23 00:00"),
                          utc("2026-12-26 23:00"), "ana", True))
    assert [o["at"]["ms"] for o in answer.data["occurrences"]] == [
        utc("2026-12-23 09:00"), utc("2026-12-24 09:00"), utc("2026-12-26 09:00")]
    assert answer.data["skipped"] == ["2026-12-25 skipped: a skip date of its own"]
    assert "left out: 2026-12-25 skipped: a skip date of its own" in answer.lines[0]


def test_the_backfill_plan_of_a_declared_calendar_takes_its_skip_dates_from_its_declaration(db):
    from tickwork.backfill import plan

    ticks(db, [daily()], utc("2026-12-20 12:00"), utc("2026-12-27 12:00"))
    found = run(plan(OperatorStore(db), utc("2026-12-27 12:01"), "statement", utc("2026-12-23 00:00"),
                     utc("2026-12-26 23:00"), skip=dict(HOLIDAYS)))
    assert [c.at for c in found.todo] == [utc("2026-12-23 09:00"), utc("2026-12-24 09:00"), utc("2026-12-26 09:00")]
    assert found.skipped == ("2026-12-25 skipped: holidays",)


def test_the_consoles_backfill_listing_of_a_declared_calendar_leaves_its_skip_dates_out_and_says_so():
    from console_fixtures import ORIGIN, PREFIX, ask, csrf_of

    from tickwork.app import App

    app = App("DB", (daily(),), console={"prefix": PREFIX})
    db = open_store()
    ticks(db, [daily()], utc("2026-12-20 12:00"), utc("2026-12-27 12:00"))
    now = utc("2026-12-27 12:01")
    token = csrf_of(ask(db, "GET", f"{PREFIX}/schedule?name=statement", now=now, app=app).body)
    answer = ask(db, "POST", f"{PREFIX}/schedule/backfill", now=now, headers={"origin": ORIGIN}, app=app,
                 form={"name": "statement", "from": "2026-12-23T00:00Z", "to": "2026-12-26T23:00Z", "dry": "1",
                       "csrf": token})
    assert answer.status == 200
    assert "3 occurrences" in answer.body and "left out: 2026-12-25 skipped: holidays" in answer.body
    assert "2026-12-25 09:00 UTC" not in answer.body


def test_why_of_a_declared_calendar_reads_its_skip_dates_from_its_manifest_entry(db):
    from tickwork.operating.views import entry_of_manifest, schedule_view

    ticks(db, [daily()], utc("2026-12-24 12:00"))
    [row] = run(db.all("SELECT * FROM tickwork_schedules WHERE name = 'statement'"))
    entry = {"kind": "calendar", "name": "statement", "cron": "0 9 * * *", "zone": "UTC", "nonexistent": "shift",
             "repeated": "first", "skip": dict(HOLIDAYS), "source": "s.jadpo:1"}
    view = schedule_view(row, utc("2026-12-24 13:00"), entry_of_manifest(entry))
    assert (view.due_at, view.next_due) == (utc("2026-12-25 09:00"), utc("2026-12-26 09:00"))
    assert view.skipped == ("2026-12-25 skipped: holidays",)
    assert view.timing == "0 9 * * * in UTC, not on 2 skip dates (holidays)"
    assert schedule_view(row, utc("2026-12-24 13:00"), None).next_due == utc("2026-12-25 09:00")


def test_the_manifest_keeps_a_named_list_once_and_each_calendar_shares_it(tmp_path):
    from tickwork_build.output import manifest_source
    from tickwork_cli.manifest import declared

    two = SKIPPING + SKIPPING.replace("statement", "reminder").replace("skip: holidays, 2026-07-04", "skip: holidays")
    root = project(tmp_path, {"s.jadpo": two}, tool=DATES)
    specs = build(root).schedules
    source = manifest_source("DB", specs, 10)
    assert source.count("2027-01-01") == 1  # in DATES alone
    imported: dict = {}
    exec(compile(source, "tickwork_manifest.py", "exec"), imported)
    entries = {entry["name"]: entry for entry in imported["SCHEDULES"]}
    assert entries == {spec.name: spec.manifest_entry() for spec in specs}
    assert entries["reminder"]["skip"] is imported["DATES"]["holidays"]
    assert declared(root) == entries  # as the operator's command reads the manifest the build wrote


def test_the_decorator_with_an_empty_skip_skips_nothing(tmp_path):
    python = ACTIONS + ("\nfrom tickwork import calendar\n"
                        'calendar("0 9 * * *", skip=[], name="statement")(queue_chore_census)\n')
    [spec] = build(project(tmp_path, {}, actions=python)).schedules
    assert spec.skip is None


def test_a_run_asked_for_by_hand_on_a_skip_date_runs(db):
    """A skip date keeps the calendar's own calls away, not the operator's."""
    ticks(db, [daily()], utc("2026-12-24 12:00"))
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada' "
               "WHERE name = 'statement'", (utc("2026-12-25 09:30"),)))
    ticks(db, [daily()], utc("2026-12-25 09:31"))
    [ran] = runs(db, "statement")
    assert (ran["at"], ran["outcome"], ran["by_hand"]) == (utc("2026-12-25 09:00"), Outcome.SUCCEEDED, "ada")


def test_a_run_asked_for_by_hand_of_a_calendar_later_than_its_grace_runs(db):
    late = Schedule("statement", Calendar(cron_calendar("0 9 * * *", "UTC"), 5 * MINUTE), Inputs())
    ticks(db, [late], utc("2026-12-20 12:00"))
    run(db.all("UPDATE tickwork_schedules SET run_requested_at = ?1, run_requested_by = 'ada' "
               "WHERE name = 'statement'", (utc("2026-12-21 10:00"),)))
    ticks(db, [late], utc("2026-12-21 10:01"))
    [ran] = runs(db, "statement")
    assert (ran["outcome"], ran["by_hand"]) == (Outcome.SUCCEEDED, "ada")


def test_a_deploy_changing_only_skip_dates_takes_effect_at_the_next_tick(db):
    """Skip dates are no part of the form: the declared set's fingerprint and the due time stay,
    and the next tick reads the dates from the declaration (code) as it is now."""
    ticks(db, [daily(skip=())], utc("2026-12-24 12:00"))
    due = state(db, "statement").due_at
    ticks(db, [daily()], utc("2026-12-25 09:00"))  # deployed with holidays
    ticks(db, [daily(skip=())], utc("2027-01-01 09:00"))  # and without them again
    assert due == utc("2026-12-25 09:00")
    assert moments(db) == [(utc("2026-12-25 09:00"), Outcome.SKIPPED, Code.SKIP_DATE),
                           (utc("2027-01-01 09:00"), Outcome.SUCCEEDED, None)]


def test_the_consoles_next_due_times_pass_a_run_of_skip_dates_a_day_at_a_step(db, monkeypatch):
    """A minutely calendar with a year of skip dates ahead: the page steps over each date at
    once, not over its 1,440 occurrences one by one (half a million searches)."""
    from datetime import date, timedelta

    from test_the_console_pages import shown
    from console_fixtures import PREFIX, ask
    from tickwork.kinds.calendar import CronCalendar

    year = [(date(2026, 12, 25) + timedelta(days=n)).isoformat() for n in range(365)]
    id = run(handed(db, EVE).calendar(send_statement, None, "* * * * *", skip=year))
    ticks(db, [], utc("2026-12-24 23:58"))
    made, search = [0], CronCalendar._search

    def counted(calendar, moment, forward):
        made[0] += 1
        return search(calendar, moment, forward)

    monkeypatch.setattr(CronCalendar, "_search", counted)
    page = shown(ask(db, "GET", f"{PREFIX}/schedule?name={id}", now=utc("2026-12-24 23:58")))
    assert "2026-12-24 23:59 UTC" in page and "2027-12-25 00:00 UTC" in page
    assert made[0] < 10_000


def test_the_commands_backfill_of_a_declared_calendar_leaves_the_skip_dates_of_its_manifest_out(tmp_path, db):
    from tickwork_cli.deliveries_and_backfills import backfill

    root = project(tmp_path, {"s.jadpo": SKIPPING}, tool=DATES)
    build(root)
    berlin = daily("Europe/Berlin", cron="0 9 * * *")
    ticks(db, [berlin], utc("2026-12-20 12:00"), utc("2026-12-27 12:00"))
    answer = run(backfill(OperatorStore(db), utc("2026-12-27 12:01"), "statement", utc("2026-12-23 00:00"),
                          utc("2026-12-26 23:00"), "ana", True, root))
    assert [o["at"]["ms"] for o in answer.data["occurrences"]] == [
        utc("2026-12-23 08:00"), utc("2026-12-24 08:00"), utc("2026-12-26 08:00")]
    assert answer.data["skipped"] == ["2026-12-25 skipped: holidays"]


def test_a_calendar_handed_over_with_an_empty_skip_keeps_the_id_it_has_without(db):
    """`skip=[]` skips nothing, as the decorator's: the same schedule, the same id."""
    without = run(handed(db, EVE).calendar(send_statement, {"c": 1}, "0 9 * * *"))
    assert run(handed(db, EVE).calendar(send_statement, {"c": 1}, "0 9 * * *", skip=[])) == without


def test_a_calendar_handed_over_that_expired_after_its_last_due_time_on_a_skip_date_makes_no_call_for_it(db):
    """Down over the 25th, a skip date, past its `expires` on the 25th at 10:00: the call owed
    from before it expired is on the skip date, so none is made; it ends."""
    id = run(handed(db, EVE).calendar(send_statement, None, "0 9 * * *", skip=["2026-12-25"],
                                      expires=utc("2026-12-25 10:00")))
    ticks(db, [], utc("2026-12-24 12:01"), utc("2026-12-26 12:00"))
    [end] = runs(db, id)
    assert (end["outcome"], end["code"]) == (Outcome.SKIPPED, Code.EXPIRED)
