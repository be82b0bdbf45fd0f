"""The grid a schedule's runs fall on: `due` and `every` kept in its state row define it."""


def first_due(first_tick: int, every: int) -> int:
    """A schedule's first run is due one `every` after the first tick that sees it."""
    return first_tick + every


def next_due(due: int, every: int, tick: int) -> int:
    """The first grid time after `tick`: missed grid times collapse into this one."""
    if tick < due:
        return due
    return due + ((tick - due) // every + 1) * every


def rebased_due(due: int, new_every: int, tick: int) -> int:
    """A changed `every` takes effect from the kept due time or one new interval on, whichever is first."""
    return min(due, tick + new_every)
