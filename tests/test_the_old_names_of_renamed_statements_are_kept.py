"""A statement renamed where two stores named other SQL alike keeps its old name at its old path:
`from tickwork.backfill_store import TAKE_LEASES` gives the text it always gave, which the golden
SQL keeps under the new name (tests/sql/, renamed at 100 %). The old name is looked up, not bound,
so the statement has one name there."""
from importlib import import_module
from pathlib import Path

import pytest

KEPT = Path(__file__).parent / "sql"

RENAMED = [
    ("backfill_store", "CLAIMS", "STEPS"),
    ("backfill_store", "TAKE_LEASES", "TAKE_BACKFILL_LEASES"),
    ("backfill_store", "RECORD_STARTS", "RECORD_BACKFILL_STARTS"),
    ("alerts_store", "RECORD_GAP", "RECORD_ALERTED_GAP"),
    ("housekeeping_store", "SET_ASIDE", "SET_ASIDE_PAST_RETENTION"),
    ("outbox_store", "SELECT_DELIVERIES", "SELECT_DELIVERIES_WITH_EVENTS"),
]


@pytest.mark.parametrize("module, old, new", RENAMED, ids=[f"{m}.{o}" for m, o, _ in RENAMED])
def test_the_old_name_at_the_old_path_gives_the_text_kept_under_the_new_name(module, old, new):
    shim = import_module(f"tickwork.{module}")
    assert getattr(shim, old) == getattr(shim, new) == (KEPT / f"{new}.sql").read_text()
    assert old not in vars(shim)


def test_the_old_names_import_as_users_write_them():
    from tickwork.alerts_store import RECORD_GAP
    from tickwork.backfill_store import CLAIMS, RECORD_STARTS, TAKE_LEASES
    from tickwork.housekeeping_store import SET_ASIDE
    from tickwork.outbox_store import SELECT_DELIVERIES

    assert TAKE_LEASES.lstrip().startswith((KEPT / "STEPS.sql").read_text().strip()) and CLAIMS in RECORD_STARTS
    assert "tickwork_gaps" in RECORD_GAP and "tickwork_deliveries" in SET_ASIDE
    assert "JOIN tickwork_events" in SELECT_DELIVERIES


def test_a_name_no_store_held_is_still_an_attribute_error():
    with pytest.raises(AttributeError):
        import_module("tickwork.backfill_store").NO_SUCH_STATEMENT  # noqa: B018
