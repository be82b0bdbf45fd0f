"""A schedule's form is persisted and fingerprinted: kinds.forms reads back every form a timing
writes, into the same timing, and writes the form it read byte for byte. A form it does not
write back exactly is no form."""

import json

import pytest

from tickwork import app
from tickwork.calendars import Calendar, cron_calendar
from tickwork.grid import Every
from tickwork.kinds.forms import KINDS, PREFIXES, Form, form_of, parse_form, timing_of, timing_of_row
from tickwork.once import Once
from tickwork.pulses import Pulse
from tickwork.times import utc

CRONS = (
    "0 9 * * 1",  # the days read alike before and after Vixie's rule
    "*/15 * * * *",
    "0 9 */2 * 1",  # read otherwise before Vixie's rule: its form ends " days=vixie"
    "0 9 1 * 1",
    "30 0 9 * * MON-FRI",  # seconds first
    "0\t9 * * 1",  # a tab between fields, kept as written
    "0 9 * * 1 ",  # a trailing space, kept as written
    "0 0 30 2 *",  # never comes due: still a form
)
ZONES = ("UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe")

TIMINGS = [
    *(Every(ms) for ms in (60_000, 900_000, 86_400_000, 3_600_000 * 24 * 365)),
    *(Calendar(cron_calendar(cron, zone, nonexistent, repeated))
      for cron in CRONS for zone in ZONES for nonexistent in ("shift", "skip") for repeated in ("first", "both")),
    *(Pulse(cycle, intervals) for cycle, intervals in ((60_000, 1), (3_600_000, 12), (86_400_000, 1440), (1000, 3))),
    *(Once(at) for at in (0, utc("2026-01-05 09:15"), utc("2099-12-31 23:59"))),
]


@pytest.mark.parametrize("timing", TIMINGS, ids=lambda t: t.form)
def test_a_timings_form_reads_back_into_the_same_timing(timing):
    assert parse_form(timing.form).timing() == timing


@pytest.mark.parametrize("timing", TIMINGS, ids=lambda t: t.form)
def test_a_form_read_is_written_back_byte_for_byte(timing):
    assert parse_form(timing.form).text == timing.form


def test_the_forms_say_what_they_said_before():
    assert Every(900_000).form == "every 900000"
    assert Pulse(3_600_000, 12).form == "pulse 3600000/12"
    assert Once(utc("2026-01-05 09:15")).form == "once 1767604500000"
    assert Calendar(cron_calendar("0 9 * * 1", "Europe/Berlin")).form == (
        "calendar 0 9 * * 1 | Europe/Berlin | nonexistent=shift repeated=first")
    assert Calendar(cron_calendar("0 9 */2 * 1", "UTC", "skip", "both")).form == (
        "calendar 0 9 */2 * 1 | UTC | nonexistent=skip repeated=both days=vixie")


def test_a_calendar_form_is_read_into_its_fields():
    form = parse_form("calendar 0 9 */2 * 1 | Europe/Berlin | nonexistent=skip repeated=both days=vixie")
    assert form == Form("calendar", cron="0 9 */2 * 1", zone="Europe/Berlin", nonexistent="skip", repeated="both",
                        days_vixie=True)


def test_pulse_every_and_once_forms_are_read_into_their_fields():
    assert parse_form("pulse 3600000/12") == Form("pulse", cycle=3_600_000, intervals=12)
    assert parse_form("every 60000") == Form("every", every_ms=60_000)
    assert parse_form("once 1767604500000") == Form("once", at=1_767_604_500_000)


def test_a_calendar_kept_from_before_vixies_reading_is_read_as_written_and_its_timing_says_vixie():
    kept = "calendar 0 9 */2 * 1 | UTC | nonexistent=shift repeated=first"
    form = parse_form(kept)
    assert form.text == kept and not form.days_vixie
    assert form.timing().form == kept + " days=vixie"


def test_a_calendars_overdue_is_kept_in_its_entry_not_its_form():
    timing = timing_of({"kind": "calendar", "cron": "0 9 * * 1", "zone": "UTC", "nonexistent": "shift",
                        "repeated": "first", "overdue_ms": 3_600_000})
    assert timing.overdue == 3_600_000
    assert parse_form(timing.form).text == timing.form and parse_form(timing.form).timing().overdue is None


@pytest.mark.parametrize("text", [
    "every", "every ", "every 60000 ", "every 060000", "every 1_000", "every x",
    "pulse 3600000", "pulse 3600000/12/1", "pulse 3600000/ 12",
    "once", "once 1.5",
    "calendar 0 9 * * 1", "calendar 0 9 * * 1 | UTC", "calendar 0 9 * * 1 | UTC | nonexistent=shift",
    "calendar 0 9 * * 1 | UTC | repeated=first nonexistent=shift",
    "calendar 0 9 * * 1 | UTC | nonexistent=shift repeated=first days=croniter",
    "calendar 0 9 * * 1 | UTC | nonexistent=shift  repeated=first",
    "calendar 0 9 * * 1 |UTC| nonexistent=shift repeated=first",
    "hourly 5", "", " every 60000",
])
def test_a_text_no_timing_writes_is_no_form(text):
    with pytest.raises(ValueError):
        parse_form(text)


def test_a_row_from_before_migration_0002_has_the_form_of_its_interval():
    assert form_of({"form": None, "every_ms": 900_000}) == "every 900000"
    assert form_of({"every_ms": "900000"}) == "every 900000"
    assert form_of({"form": "pulse 60000/1", "every_ms": 0}) == "pulse 60000/1"


def test_a_rows_timing_is_its_handed_over_json_else_its_form():
    entry = {"kind": "calendar", "cron": "0 9 * * 1", "zone": "UTC", "nonexistent": "shift", "repeated": "first",
             "overdue_ms": 60_000}
    handed_over = {"form": "calendar 0 9 * * 1 | UTC | nonexistent=shift repeated=first", "every_ms": 0,
                   "timing": json.dumps(entry, sort_keys=True)}
    assert timing_of_row(handed_over).overdue == 60_000
    assert timing_of_row({"form": None, "every_ms": 60_000, "timing": None}) == Every(60_000)
    assert timing_of_row({"form": "once 5", "every_ms": 0}) == Once(5)


def test_each_kind_of_the_manifest_has_one_entry_in_the_registry():
    assert tuple(KINDS) == app.KINDS
    assert {kind.prefix for kind in KINDS.values()} == set(PREFIXES)


@pytest.mark.parametrize("entry, timing", [
    ({"kind": "schedule", "every_ms": 60_000}, Every(60_000)),
    ({"kind": "purge", "every_ms": 86_400_000, "table": "t"}, Every(86_400_000)),
    ({"kind": "pulse", "cycle_ms": 3_600_000, "intervals": 12}, Pulse(3_600_000, 12)),
    ({"kind": "once", "at_ms": 5}, Once(5)),
    ({"kind": "calendar", "cron": "0 9 * * 1", "zone": "UTC", "nonexistent": "skip", "repeated": "both"},
     Calendar(cron_calendar("0 9 * * 1", "UTC", "skip", "both"))),
])
def test_an_entrys_timing_and_its_forms_timing_are_one(entry, timing):
    assert timing_of(entry) == timing
    assert parse_form(timing.form).timing() == timing
    assert app.timing_of is timing_of  # the old path reads the one parser


def test_an_entry_of_a_kind_this_tickwork_does_not_know_is_refused():
    with pytest.raises(ValueError, match="unknown kind of schedule in the manifest: 'hourly'; rebuild the app"):
        timing_of({"kind": "hourly", "every_ms": 60_000})
