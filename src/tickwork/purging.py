"""Purge schedules: an app's own table loses its rows older than `after`, an hour at a time
(schedules document, "The purge schedule"). The build declares each as an hourly schedule named
`<table>.purge`; its run calls this, at the tick's time: at most 20 batches of 500 rows, within
the run's time limit, the next hour carrying on. Each batch is its own statement, so what was
deleted stays deleted whatever fails after; the run record keeps the rows deleted (`items`) and
each batch's count. A store that cannot be reached makes a failed run with `unavailable`;
anything else it refuses is `internal_fault`. A purge emits nothing.

How old a row must be is the purge's `after:`, or, with `after: vars.NAME`, the value the app
started with for that setting: the Worker's var `NAME` as the invocation got it."""

import json
from datetime import datetime, timezone

from .context import current_run
from .model import ActionError
from .times import LONGEST, MINUTE, duration_ms

BATCHES = 20
ROWS_A_BATCH = 500

# What D1 (or the network to it) says when the store cannot be reached.
_UNREACHABLE = ("network", "unavailable", "timed out", "timeout", "connection", "overloaded")


def cutoff(now: int, after: int, format: str) -> object:
    """The oldest time a row keeps, as the column holds times."""
    moment = now - after
    if format == "epoch_ms":
        return moment
    if format == "epoch_s":
        return moment // 1000
    return datetime.fromtimestamp(moment / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M:%S")


def statement(table: str, column: str, format: str) -> str:
    """One batch: the oldest rows first. ISO text is compared as SQLite reads it, with a T or Z."""
    older = f'datetime("{column}") < datetime(?1)' if format == "iso" else f'"{column}" < ?1'
    return (f'DELETE FROM "{table}" WHERE rowid IN (SELECT rowid FROM "{table}" WHERE {older} '
            f"LIMIT {ROWS_A_BATCH}) RETURNING 1")


def setting_age(value) -> int | None:
    """A setting's value as a purge's age, in ms: a duration from a minute to a century (the
    build checks wrangler.toml's [vars] with this too); None where it is not one."""
    ms = duration_ms(value) if isinstance(value, str) else None
    return ms if ms is not None and MINUTE <= ms <= LONGEST else None


def after_setting(settings: dict | None, name: str) -> int:
    """A purge's age read from the setting `name`."""
    value = (settings or {}).get(name)
    ms = setting_age(value)
    if ms is None:
        said = "is not set" if value is None else f"is {value!r}"
        raise ActionError("purge.after_invalid",
                          f"the setting {name}, which `after:` reads, {said}: set it to a duration from "
                          "1m to 36500d (`30d`) in wrangler.toml's [vars]; nothing was purged")
    return ms


def purge_action(table: str, column: str, format: str, after: int | None, setting: str | None = None):
    """The action of `<table>.purge`; its age `after` ms, or read from the setting `setting`."""
    sql = statement(table, column, format)

    async def purge() -> None:
        run = current_run()
        age = after if setting is None else after_setting(run.settings, setting)
        assert age is not None, "a purge's entry holds after_ms or after_setting (the build)"
        batches: list[int] = []
        run.counts.update(items=0, batches="[]")
        try:
            for _ in range(BATCHES):
                deleted = len(await run.db.all(sql, (cutoff(run.now, age, format),)))
                batches.append(deleted)
                run.counts.update(items=sum(batches), batches=json.dumps(batches))
                if deleted < ROWS_A_BATCH:
                    break
        except Exception as error:
            if any(word in str(error).lower() for word in _UNREACHABLE):
                raise ActionError("unavailable", f"{table}: the store could not be reached: {error}") from error
            raise

    purge.__qualname__ = purge.__name__ = f"purge_{table}"
    return purge
