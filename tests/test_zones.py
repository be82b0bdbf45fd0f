"""Time zones are exactly the vendored tzdata's, on CPython as on the Worker (which has no system
zone files): the build, a calendar handed over at run time and a calendar's instants all take
the zones tzdata lists, read from tzdata's own files, never the system's."""

import shutil
import zoneinfo
from importlib import resources

import pytest
from harness import send_statement
from helpers import open_store, run

from tickwork import ScheduleError
from tickwork.calendars import CronCalendar
from tickwork.per_item import Items
from tickwork.times import utc
from tickwork.zones import vendored_zones, zone_info

SUNDAY = utc("2026-01-04 12:00")


@pytest.fixture
def system_zone_files(tmp_path):
    """System zone files (CPython's TZPATH) of the names given, each holding Tokyo's rules."""

    def write(*names):
        for name in names:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            with resources.as_file(resources.files("tzdata").joinpath("zoneinfo", "Asia", "Tokyo")) as tokyo:
                shutil.copy(tokyo, tmp_path / name)

    zoneinfo.reset_tzpath([str(tmp_path)])
    zoneinfo.ZoneInfo.clear_cache()
    yield write
    zoneinfo.reset_tzpath()
    zoneinfo.ZoneInfo.clear_cache()


# Names only system zone files hold; a case other than tzdata's, as a case-insensitive file
# system (macOS, Windows) finds it.
@pytest.mark.parametrize("zone", ["posix/Europe/Berlin", "right/UTC", "localtime", "posixrules", "europe/berlin"])
def test_a_zone_only_the_systems_files_have_is_refused_at_hand_over(zone, system_zone_files):
    system_zone_files(zone)
    assert zoneinfo.ZoneInfo(zone)  # CPython itself would take it
    db = open_store()
    with pytest.raises(ScheduleError) as raised:
        run(Items(db, lambda: SUNDAY).calendar(send_statement, None, "0 9 * * 1", zone=zone))
    assert raised.value.code == "schedule.zone_invalid"
    assert run(db.all("SELECT COUNT(*) AS n FROM tickwork_schedules")) == [{"n": 0}]


def test_a_calendars_instants_come_from_the_vendored_tzdata_not_the_systems_files(system_zone_files):
    system_zone_files("Europe/Berlin")
    monday_nine = CronCalendar("0 9 * * 1", "Europe/Berlin").next_after(SUNDAY)
    assert monday_nine.at == utc("2026-01-05 08:00")


def test_every_zone_the_vendored_tzdata_lists_is_a_zone_a_calendar_takes():
    zones = vendored_zones()
    assert {"Europe/Berlin", "UTC", "US/Eastern", "Asia/Calcutta"} <= zones and len(zones) > 500
    assert all(zone_info(zone).key == zone for zone in zones)
