"""The planning domain: its actions are the `async def` functions of this module."""

from tickwork import call, clock, consumer, env, event, items, schedule
from tickwork.times import DAY, MINUTE

# Sent through the REMINDERS queue of wrangler.toml, once the run that emits it has succeeded.
reminded = event("reminded", queue="REMINDERS")

# The todos past their due date, as the app's own tables would give them.
OVERDUE_TODOS = ("water the plants", "file the taxes")


async def queue_chore_census():
    """Runs every 15 minutes (schedules/chore_census.jadpo): hands over a reminder for each
    overdue todo, a minute from now, one schedule per item."""
    print(f"planning: census of overdue chores as of {clock.now:%Y-%m-%d %H:%M} UTC")
    for todo in OVERDUE_TODOS:
        await items.once(remind, {"todo": todo}, clock.now_ms + MINUTE)


async def remind():
    """A one-off schedule handed over by the census: `call.input` is what it was handed. It
    emits an event, delivered through the queue to `note_reminder` once this run has succeeded."""
    print(f"planning: reminder, {call.input['todo']!r} is overdue (due {clock.now:%H:%M} UTC)")
    await reminded.emit({"todo": call.input["todo"], "at": call.at})


@consumer("tickwork-example-reminders")
async def note_reminder():
    """The queue's consumer: at least once, and safe to repeat (a repeat is acked, not called)."""
    print(f"planning: the reminder for {call.input['todo']!r} came back through the queue")


@schedule(every="1h")
async def tidy_up():
    """Declared in Python: the same as `schedule tidy_up { every: 1h  run: tidy_up() }`."""
    print(f"planning: tidied up at {clock.now:%Y-%m-%d %H:%M} UTC")


async def sweep_todos():
    """A pulse's share (schedules/sweep.jadpo): todos whose shard is `call.i` of `call.n`."""
    print(f"planning: swept todos of shard {call.i} of {call.n} at {clock.now:%H:%M} UTC")


@schedule(every="1h")
async def tally_chores():
    """The app's own tables through the Worker's own D1 binding, `env.DB` (wrangler.toml's `DB`,
    as `self.env.DB` in a handler; results are dicts): counts the chores done in the day before
    the run and keeps the count in `chore_tallies`, written at once."""
    done = await env.DB.prepare(
        "SELECT COUNT(*) AS n FROM chores_done WHERE done_at > ?1"
    ).bind(clock.now_ms - DAY).first("n")
    await env.DB.prepare(
        "INSERT INTO chore_tallies (at, done) VALUES (?1, ?2) ON CONFLICT (at) DO NOTHING"
    ).bind(clock.now_ms, done).run()
    print(f"planning: {done} chores done in the day to {clock.now:%Y-%m-%d %H:%M} UTC")
