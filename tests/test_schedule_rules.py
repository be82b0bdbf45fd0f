"""What a schedule may be is checked once (kinds.rules), for the build and for schedules handed
over at run time alike: the same value is refused by both, under the same code."""

import pytest
from helpers import open_store, run

from tickwork import ScheduleError
from tickwork.kinds import rules
from tickwork.kinds.calendar import Calendar, cron_calendar
from tickwork.kinds.cron_syntax import parse
from tickwork.kinds.every import Every
from tickwork.per_item import Items
from tickwork.times import utc

NOW = utc("2026-01-05 09:00")


async def send_statement():
    pass


def refused(check, *args) -> ScheduleError:
    with pytest.raises(ScheduleError) as error:
        check(*args)
    return error.value


@pytest.mark.parametrize("ms", [1, 59_999])
def test_an_interval_under_a_minute_is_off_the_workers_target(ms):
    error = refused(rules.every_within_target, ms, f"every {ms} ms", "hand over every 60000 ms (1m) or more")
    assert error.code == "deployable.target_unsupported"
    assert error.message == f"every {ms} ms is under a minute; a Worker ticks once a minute"


def test_an_interval_of_a_minute_is_on_the_workers_target():
    assert rules.every_within_target(60_000, "every 60000 ms", "") == 60_000


@pytest.mark.parametrize("cron, refused_", [("*/30 * * * * *", True), ("0,30 * * * * *", True),
                                             ("30 * * * * *", False), ("* * * * *", False)])
def test_a_seconds_field_may_name_one_second_a_minute(cron, refused_):
    if refused_:
        error = refused(rules.seconds_within_target, parse(cron), "its")
        assert error.code == "deployable.target_unsupported"
        assert error.message == "its seconds field comes due more than once a minute; a Worker ticks once a minute"
    else:
        rules.seconds_within_target(parse(cron), "its")


@pytest.mark.parametrize("cycle, intervals, code", [
    (60_000, 61, "schedule.intervals_invalid"),  # shares under a second
    (3_600_000, 61, "deployable.target_unsupported"),  # shares under a minute
])
def test_a_pulses_shares_are_a_second_long_and_a_minute_on_the_workers_target(cycle, intervals, code):
    def check():
        rules.intervals_within_cycle(cycle, intervals)
        rules.share_within_target(cycle, intervals)

    assert refused(check).code == code


def test_a_cron_naming_no_date_that_exists_never_comes_due():
    never = Calendar(cron_calendar("0 0 30 2 *"))
    error = refused(rules.comes_due, never, NOW, "`0 0 30 2 *`")
    assert (error.code, error.message) == ("schedule.cron_invalid", "`0 0 30 2 *` never comes due")
    assert rules.comes_due(Calendar(cron_calendar("0 0 29 2 *")), NOW, "") == utc("2028-02-29 00:00")
    assert rules.comes_due(Every(60_000), NOW, "") == NOW + 60_000


@pytest.mark.parametrize("zone", ["Mars/Base", "posix/Europe/Berlin", "localtime", 7, None])
def test_a_zone_is_one_of_the_vendored_tzdata(zone):
    error = refused(rules.zone_checked, zone, repr(zone))
    assert error.code == "schedule.zone_invalid"
    assert error.message == f"{zone!r} is not an IANA time zone of the vendored tzdata"


def test_a_daylight_saving_rule_is_one_of_those_it_has():
    error = refused(rules.choice_checked, "later", ("shift", "skip"), "`nonexistent: later`", "`nonexistent: shift`")
    assert (error.code, error.message, error.mend) == (
        "schedule.dst_invalid", "`nonexistent: later` is none of shift, skip",
        "write `nonexistent: shift` or one of: shift, skip")


@pytest.mark.parametrize("ms, kept", [(1, True), (36_500 * 86_400_000, True), (0, False), (-1, False),
                                      (36_500 * 86_400_000 + 1, False)])
def test_a_duration_is_above_zero_and_at_most_a_century(ms, kept):
    assert rules.within_bounds(ms) is kept


@pytest.mark.parametrize("call, code", [
    (lambda items: items.every(send_statement, {}, 30_000), "deployable.target_unsupported"),
    (lambda items: items.calendar(send_statement, {}, "*/30 * * * * *"), "deployable.target_unsupported"),
    (lambda items: items.calendar(send_statement, {}, "0 0 30 2 *"), "schedule.cron_invalid"),
    (lambda items: items.calendar(send_statement, {}, "0 9 * * 1", zone="Mars/Base"), "schedule.zone_invalid"),
    (lambda items: items.calendar(send_statement, {}, "0 9 * * 1", nonexistent="later"), "schedule.dst_invalid"),
])
def test_a_hand_over_is_refused_by_the_same_checks_as_the_build(call, code):
    async def main():
        db = open_store()
        with pytest.raises(ScheduleError) as error:
            await call(Items(db, lambda: NOW))
        return error.value

    assert run(main()).code == code


def test_every_error_a_schedule_can_cause_is_one_family_with_code_message_and_mend():
    import tickwork
    from tickwork import errors, model
    from tickwork.cron_syntax import CronInvalid
    from tickwork.retries import Refused
    from tickwork_build.schedules import Invalid

    assert tickwork.ScheduleError is model.ScheduleError is errors.ScheduleError
    for kind in (CronInvalid, Refused, Invalid):
        assert issubclass(kind, errors.ScheduleError) and issubclass(kind, ValueError)
    error = refused(rules.limit_of, "20m")
    assert (error.code, error.message) == ("schedule.limit_invalid", "`limit: 20m` is not a duration up to 15m")


def test_a_hand_overs_error_reads_with_its_code_and_mend_and_a_checks_as_its_message_alone():
    from tickwork.errors import Invalid

    assert str(ScheduleError("schedule.zone_invalid", "'Mars' is no zone", "name one")) == (
        "schedule.zone_invalid: 'Mars' is no zone; name one")
    assert str(ScheduleError("backfill.range_invalid", "a backfill needs both")) == (
        "backfill.range_invalid: a backfill needs both")
    assert str(Invalid("schedule.zone_invalid", "'Mars' is no zone", "name one")) == "'Mars' is no zone"


# Each path words a refusal as its users have always read it: the build quotes the item as
# written in the .jadpo file, a hand-over the argument as passed. Only the zone's message is one
# wording for both (the problem table of docs/how-to/declare-schedules.md); its mend keeps each path's verb.
TICKS = "a Worker ticks once a minute"
BUILD_SAYS = [
    ("schedule", [("every", "30s")], ("deployable.target_unsupported", 2,
     f"`every:` of 30s is under a minute; {TICKS}", "use `every: 1m` or more")),
    ("schedule", [("every", "36501d")], ("schedule.every_invalid", 2,
     "`every: 36501d` is longer than a hundred years", "write at most `every: 36500d`")),
    ("calendar", [("cron", '"*/30 * * * * *"')], ("deployable.target_unsupported", 2,
     f"its seconds field comes due more than once a minute; {TICKS}",
     "name one second, e.g. `0` for the first, or use 5 fields")),
    ("calendar", [("cron", '"0 0 30 2 *"')], ("schedule.cron_invalid", 2,
     "`cron: 0 0 30 2 *` never comes due", "name a date that exists, e.g. not the 30th of February")),
    ("calendar", [("cron", '"0 9 * * 1"'), ("zone", "Mars/Base")], ("schedule.zone_invalid", 3,
     "`zone: Mars/Base` is not an IANA time zone of the vendored tzdata",
     "write a zone such as `Europe/Berlin` or `America/New_York`")),
    ("calendar", [("cron", '"0 9 * * 1"'), ("zone", "x" * 50)], ("schedule.zone_invalid", 3,
     "`zone: xxxxxxxxxxxxxxxxxxxx... (50 characters)` is not an IANA time zone of the vendored tzdata",
     "write a zone such as `Europe/Berlin` or `America/New_York`")),
    ("calendar", [("cron", '"0 9 * * 1"'), ("nonexistent", "later")], ("schedule.dst_invalid", 3,
     "`nonexistent: later` is none of shift, skip", "write `nonexistent: shift` or one of: shift, skip")),
    ("calendar", [("cron", '"0 9 * * 1"'), ("repeated", "later")], ("schedule.dst_invalid", 3,
     "`repeated: later` is none of first, both", "write `repeated: first` or one of: first, both")),
    ("pulse", [("cycle", "300"), ("intervals", "301")], ("schedule.intervals_invalid", 3,
     "`intervals: 301` is more than the cycle's 300 seconds", "make `intervals` at most `cycle`")),
    ("pulse", [("cycle", "30")], ("deployable.target_unsupported", 2,
     f"a share of 30s is under a minute; {TICKS}", "make `cycle` / `intervals` at least 60 seconds")),
    ("schedule", [("every", "15m"), ("retry", "3 after 30s")], ("deployable.target_unsupported", 3,
     "`retry: 3 after 30s` pauses under a minute; a Worker ticks once a minute (each 10-second mark with "
     "queues bound)", "pause at least 1m, or 10s with queues bound")),
    ("schedule", [("every", "15m"), ("limit", "16m")], ("schedule.limit_invalid", 3,
     "`limit: 16m` is not a duration up to 15m",
     "write e.g. `limit: 2m`; a run is stopped at 15 minutes whatever its limit")),
]


@pytest.mark.parametrize("kind, items, says", BUILD_SAYS)
def test_the_build_words_each_refusal_as_it_always_has(kind, items, says):
    import types

    from tickwork_build.declaration import Declaration, Item
    from tickwork_build.schedules import validate_declaration

    async def tidy_up():
        pass

    module = types.ModuleType("app.domains.chores")
    module.tidy_up, tidy_up.__module__ = tidy_up, module.__name__
    written = (*items, ("run", "tidy_up()"))
    declaration = Declaration(kind, "census", "chores", module.__name__, "chores.jadpo", 1,
                              tuple(Item(key, value, line) for line, (key, value) in enumerate(written, 2)))
    spec, problems = validate_declaration(declaration, module, module.__name__)
    assert [(p.code, p.line, p.message, p.mend) for p in problems] == [says]


ITEMS_SAY = [
    (lambda items: items.every(send_statement, {}, 30_000), ("deployable.target_unsupported",
     f"every 30000 ms is under a minute; {TICKS}", "hand over every 60000 ms (1m) or more")),
    (lambda items: items.every(send_statement, {}, 0), ("schedule.every_invalid",
     "`every` of 0 is not a whole number of milliseconds above zero",
     "give `every` in milliseconds, at most 3153600000000 (a century)")),
    (lambda items: items.calendar(send_statement, {}, "*/30 * * * * *"), ("deployable.target_unsupported",
     f"`*/30 * * * * *`'s seconds field comes due more than once a minute; {TICKS}",
     "name one second, e.g. `0` for the first, or use 5 fields")),
    (lambda items: items.calendar(send_statement, {}, "0 0 30 2 *"), ("schedule.cron_invalid",
     "`0 0 30 2 *` never comes due", "name a date that exists, e.g. not the 30th of February")),
    (lambda items: items.calendar_many(send_statement, [1, 2], "0 0 30 2 *"), ("schedule.cron_invalid",
     "item 0 of 2: `0 0 30 2 *` never comes due", "name a date that exists, e.g. not the 30th of February")),
    (lambda items: items.calendar(send_statement, {}, "0 9 * * 1", zone="Mars/Base"), ("schedule.zone_invalid",
     "'Mars/Base' is not an IANA time zone of the vendored tzdata",
     "name a zone such as `Europe/Berlin` or `America/New_York`")),
    (lambda items: items.calendar(send_statement, {}, "0 9 * * 1", nonexistent="later"), ("schedule.dst_invalid",
     "`nonexistent` of 'later' is none of shift, skip", "write nonexistent='shift' or one of: shift, skip")),
    (lambda items: items.calendar(send_statement, {}, "0 9 * * 1", repeated="later"), ("schedule.dst_invalid",
     "`repeated` of 'later' is none of first, both", "write repeated='first' or one of: first, both")),
    (lambda items: items.every(send_statement, {}, 60_000, retry="3 after 10s"), ("deployable.target_unsupported",
     "`retry: 3 after 10s` pauses under a minute; a Worker ticks once a minute (each 10-second mark with "
     "queues bound)", "pause at least 1m, or 10s with queues bound")),
    (lambda items: items.every(send_statement, {}, 60_000, limit="16m"), ("schedule.limit_invalid",
     "`limit: 16m` is not a duration up to 15m",
     "write e.g. `limit: 2m`; a run is stopped at 15 minutes whatever its limit")),
]


@pytest.mark.parametrize("call, says", ITEMS_SAY)
def test_a_hand_over_words_each_refusal_as_it_always_has(call, says):
    async def main():
        with pytest.raises(ScheduleError) as error:
            await call(Items(open_store(), lambda: NOW))
        return error.value

    error = run(main())
    assert (error.code, error.message, error.mend) == says
    assert str(error) == f"{says[0]}: {says[1]}; {says[2]}"
