"""ScheduleStore is its families side by side (AppRow, Schedules, Leases, Claims, EndRecords): a
method one family defines is the only one of that name, so none hides another's in the MRO."""
import collections

from tickwork.store.facade import ScheduleStore


def test_no_two_families_define_a_method_of_the_same_name():
    defined = collections.defaultdict(list)
    for family in ScheduleStore.__mro__[1:-1]:
        for name in vars(family):
            if not name.startswith("__"):
                defined[name].append(family.__name__)
    assert {name: families for name, families in defined.items() if len(families) > 1} == {}


def test_each_family_that_takes_the_database_only_keeps_it():
    # The one __init__ a ScheduleStore runs is its first family's: each must do only that.
    store = ScheduleStore(db := object())
    assert vars(store) == {"db": db}
    for family in ScheduleStore.__mro__[1:-1]:
        if "__init__" in vars(family):
            assert vars(family(db)) == {"db": db}
