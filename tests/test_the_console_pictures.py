"""The console's pictures and what the overview and a schedule's page show at a glance (issue
26): a grid of recent due times by outcome and runs per hour as inline SVG, the overview's
counts and lists that lead on, whole times written whole, an opt-in refresh, a phone's tables."""

import pytest
from console_fixtures import NOW, PREFIX, ask, filled_store

from tickwork.console.parts import iso, moment
from tickwork.times import utc


@pytest.fixture(scope="module")
def db():
    return filled_store()


# -- times ------------------------------------------------------------------------------------

def test_a_whole_time_is_written_without_milliseconds_and_a_time_with_some_keeps_them():
    assert iso(utc("2026-03-02 09:00")) == "2026-03-02T09:00:00Z"
    assert iso(utc("2026-03-02 09:00") + 250) == "2026-03-02T09:00:00.250Z"
    assert 'datetime="2026-03-02T09:00:00Z"' in moment(utc("2026-03-02 09:00"), NOW)


def test_no_page_writes_a_whole_time_with_its_milliseconds(db):
    for path in ("", "/schedule?name=census", "/schedule?name=weekly", "/runs"):
        assert ".000Z" not in ask(db, "GET", PREFIX + path).body, path
