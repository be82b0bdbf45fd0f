"""A statement that takes a record's rows as JSON names its columns from the record's own list
(COLUMNS), and the record's row is made from that same list: a field added to a record cannot
shift the columns after it, and every column carries the field of its name."""
from dataclasses import fields

import pytest

from tickwork.store.alerts import ALERT_ENDS, AlertEnd
from tickwork.store.backfills import STEPS, Step
from tickwork.store.claims import CLAIMS, Claim
from tickwork.store.ends import ENDS, End
from tickwork.store.outbox import EMITTED, SENT, Emitted, Sent
from tickwork.store.schedules import HANDED, RECORD_UNDECLARED, Handed, Undeclared
from tickwork.store.sql import json_rows
from tickwork.times import utc
from tickwork.timing import Call

NINE = utc("2026-03-02 09:00")

CLAIM = Claim("census", NINE, NINE + 60_000, "z1", Call(at=NINE, n=2, i=1, dst="earlier"), moment="m", reason=None,
              detail="d", requested=NINE - 1, by_hand="ops", trace="t", for_due=NINE - 60_000, attempt=2, retrying=2)
END = End("census", "z1", "failed", "action_error", "error", "boom", NINE + 5, items=3, batches="[3]",
          events='{"e": 1}', retry=NINE + 60_000, attempt=2, for_due=NINE, at=NINE, n=2, i=1, dst="later")
EMITTED_ONE = Emitted("e1", "order.placed", "{}", "z1", "EVENTS", "d1", "s", NINE + 30_000, NINE, "t")
ALERT_END = AlertEnd("census", "z1", "failed", "action_error", "boom", NINE, "t", "ev", "dv", "ALERTS", "s",
                     NINE + 30_000, None)
SENT_ONE = Sent("d1", "s", "pending", None, NINE + 60_000, "refused")
UNDECLARED = Undeclared("u1", "monthly", NINE - 60_000, NINE, 3, NINE - 60_000, NINE, 0)
HANDED_ONE = Handed("census@ab", "app:census", '{"kind": "every"}', "{}", "every 15m", 900_000, NINE, None, NINE, "l")
STEP = Step("b1", "monthly", NINE + 60_000, "ops", Call(at=NINE, n=None, i=None, dst=None), "z2", "t")

RECORDS = [(CLAIMS, CLAIM), (ENDS, END), (EMITTED, EMITTED_ONE), (ALERT_ENDS, ALERT_END), (SENT, SENT_ONE),
           (STEPS, STEP), (HANDED, HANDED_ONE)]


@pytest.mark.parametrize("statement, record", RECORDS, ids=[type(r).__name__ for _, r in RECORDS])
def test_a_statement_names_its_columns_from_the_records_own_list(statement, record):
    assert statement == json_rows(*type(record).COLUMNS)
    assert len(record.row()) == len(type(record).COLUMNS)


def test_what_a_calendar_missed_while_gone_is_read_from_its_records_own_list():
    assert RECORD_UNDECLARED.startswith("\n" + json_rows(*Undeclared.COLUMNS) + "\n")


@pytest.mark.parametrize("record", [END, EMITTED_ONE, ALERT_END, SENT_ONE, UNDECLARED, HANDED_ONE],
                         ids=lambda r: type(r).__name__)
def test_each_column_of_a_plain_record_carries_the_field_of_its_name(record):
    assert dict(zip(type(record).COLUMNS, record.row(), strict=True)) == {
        c: getattr(record, c) for c in type(record).COLUMNS}


def test_every_field_of_an_end_is_a_column_but_its_writes_and_its_count_which_are_statements_of_their_own():
    # times: COUNT_CALLS; beside (`overlap: allow`): which statements its chunk takes, not a column
    assert set(End.COLUMNS) == {f.name for f in fields(End)} - {"writes", "times", "beside"}


def test_a_claims_columns_carry_its_call_and_the_due_time_it_is_for():
    row = dict(zip(Claim.COLUMNS, CLAIM.row(), strict=True))
    assert (row["at"], row["n"], row["i"], row["dst"]) == (NINE, 2, 1, "earlier")
    assert row["for_due"] == CLAIM.due_for == NINE - 60_000
    assert {c: row[c] for c in ("name", "due", "next_due", "run", "moment", "requested", "attempt", "retrying")} == {
        "name": "census", "due": NINE, "next_due": NINE + 60_000, "run": "z1", "moment": "m",
        "requested": NINE - 1, "attempt": 2, "retrying": 2}


def test_a_claim_not_for_a_retry_is_for_its_own_due_time():
    assert dict(zip(Claim.COLUMNS, Claim("census", NINE, NINE + 1, "z1").row(), strict=True))["for_due"] == NINE


def test_a_backfill_step_with_no_call_has_no_call_columns():
    row = dict(zip(Step.COLUMNS, Step("b1", "monthly", NINE, "ops").row(), strict=True))
    assert (row["at"], row["n"], row["i"], row["dst"], row["run"]) == (None, None, None, None, None)
    assert (row["backfill"], row["name"], row["next"], row["who"]) == ("b1", "monthly", NINE, "ops")


def test_every_column_of_a_claim_and_a_step_carries_its_own_field_and_no_other():
    # Every value distinct, so a column filled from another field (or the call's fields crossed) shows.
    claim = Claim("census", 1, 2, "z3", Call(at=4, n=5, i=6, dst="d7"), moment="m8", reason="r9", detail="d10",
                  requested=11, by_hand="h12", trace="t13", for_due=14, attempt=15, retrying=16)
    assert dict(zip(Claim.COLUMNS, claim.row(), strict=True)) == {
        "name": "census", "due": 1, "next_due": 2, "run": "z3", "at": 4, "n": 5, "i": 6, "dst": "d7", "moment": "m8",
        "reason": "r9", "detail": "d10", "requested": 11, "by_hand": "h12", "trace": "t13", "for_due": 14,
        "attempt": 15, "retrying": 16}
    step = Step("b1", "monthly", 2, "ops", Call(at=4, n=5, i=6, dst="d7"), "z8", "t9")
    assert dict(zip(Step.COLUMNS, step.row(), strict=True)) == {
        "backfill": "b1", "name": "monthly", "next": 2, "who": "ops", "at": 4, "n": 5, "i": 6, "dst": "d7", "run": "z8",
        "trace": "t9"}
