"""The planning domain: its actions are the `async def` functions of this module."""

from tickwork import call, clock, schedule


async def queue_chore_census():
    """Runs every 15 minutes (schedules/chore_census.jadpo)."""
    print(f"planning: census of overdue chores as of {clock.now:%Y-%m-%d %H:%M} UTC")


@schedule(every="1h")
async def tidy_up():
    """Declared in Python: the same as `schedule tidy_up { every: 1h  run: tidy_up() }`."""
    print(f"planning: tidied up at {clock.now:%Y-%m-%d %H:%M} UTC")


async def sweep_todos():
    """A pulse's share (schedules/sweep.jadpo): todos whose shard is `call.i` of `call.n`."""
    print(f"planning: swept todos of shard {call.i} of {call.n} at {clock.now:%H:%M} UTC")
