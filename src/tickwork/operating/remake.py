"""A failed due time made again, as the console's run page and `tickwork remake RUN` ask for it:
the checks, then the one batch that asks for it (store/remakes.py). A refusal is a ScheduleError
with its code: `remake.unknown` (no such run) or `remake.not_remakable` (and why)."""

from dataclasses import dataclass

from .. import backfill
from ..database import Database, Row
from ..errors import ScheduleError
from ..store.bulk_verbs import MOST, Bulk, BulkVerbs
from ..store.operator import OperatorStore
from ..store.remakes import RemakeStore
from ..store.run_filters import RunFilter
from ..store.schedules import ONE_OFF_DONE
from . import words
from .words import when

UNKNOWN = "remake.unknown"
NOT_REMAKABLE = "remake.not_remakable"


@dataclass(frozen=True)
class Asked:
    """A remake asked for: the backfill of the one occurrence that makes it, and the run it remakes."""

    backfill: str
    run: Row

    def words(self, who: str) -> str:
        paused = " once it is resumed (it is paused)" if self.run.get("paused") else ""
        return (f"{self.run['schedule']} due {when(int(self.run['due_at']))}: made again by the next tick{paused}, "
                f"as {who}'s remake of run {self.run['id']}")


async def remake(db: Database, id: str, who: str, now: int) -> Asked:
    """Asks for the due time of the failed run `id` to be made again by the next tick, logged as
    `who`'s: only an occurrence its schedule's timing owes, as a backfill would make it."""
    store = RemakeStore(db)
    run = await store.read(id)
    if run is None:
        raise ScheduleError(UNKNOWN, f"there is no run {id}", "`tickwork history NAME` lists a schedule's runs")
    why = why_not_remade(run)
    if why:
        raise ScheduleError(NOT_REMAKABLE, f"{run['schedule']} due {when(int(run['due_at']))}: {why}")
    if run.get("schedule_due") is not None:
        not_owed = (await unowed(db, now, run["schedule"], [int(run["due_at"])])).get(int(run["due_at"]))
        if not_owed:
            raise ScheduleError(NOT_REMAKABLE, not_owed)
    remade = await store.remake(id, who, now)
    if remade.backfill is None or remade.run is None:
        found = remade.run or run
        raise ScheduleError(NOT_REMAKABLE, f"{found['schedule']} due {when(int(found['due_at']))}: "
                                           f"{why_not_remade(found) or 'it changed meanwhile: ask once more'}")
    return Asked(remade.backfill, remade.run)


async def unowed(db: Database, now: int, schedule: str, dues: list[int]) -> dict[int, str]:
    """Why each of `dues` that `schedule`'s timing no longer owes is not made again (a backfill
    would not make it, so the tick's backfill step would drop its remake), by due time; one plan
    over them all. An owed due time is not in it."""
    try:
        plan = await backfill.plan(OperatorStore(db), now, schedule, min(dues), max(dues), ("due", "due"))
    except backfill.Refused as refused:
        return {due: refused.message for due in dues}
    if plan is None:
        return {}
    found = {call.at for call in plan.found}
    return {due: f"{schedule} due {when(due)} is no occurrence its timing owes" for due in dues if due not in found}


async def remake_failed(db: Database, runs: RunFilter, who: str, now: int, dry: bool, most: int = MOST) -> Bulk:
    """The failed due times `runs` shows, `most` at most, each made again once where the one
    remake would make it: remakable (REMAKABLE) and owed by its schedule's timing. A dry run only
    reads them; a row not owed is listed not remakable, with why (`not_owed`)."""
    store = BulkVerbs(db)
    rows = await store.failed_due_times(runs, most)
    dues: dict[str, list[int]] = {}
    for row in rows:
        if row["remakable"]:
            dues.setdefault(row["schedule"], []).append(int(row["due_at"]))
    why = {(name, due): said for name, at in dues.items() for due, said in (await unowed(db, now, name, at)).items()}
    if dry:
        return Bulk([{**row, "remakable": 0, "not_owed": why[(row["schedule"], int(row["due_at"]))]}
                     if (row["schedule"], int(row["due_at"])) in why else row for row in rows], [], most)
    owed = [row["id"] for row in rows if row["remakable"] and (row["schedule"], int(row["due_at"])) not in why]
    return await store.retry_failed(runs, who, now, owed, most)


def why_not_remade(run: Row) -> str | None:
    """Why the due time of `run` (SELECT_REMADE's row) is not made again, as the operator reads
    it; None where it may be (REMAKABLE)."""
    if run.get("not_owed"):
        return str(run["not_owed"])
    if run["outcome"] != "failed":
        return f"the run {run['outcome']}: only a failed one's due time is made again"
    if run.get("schedule_due") is None:
        return "its schedule is gone"
    if run.get("removed_at") is not None and run.get("ended") != ONE_OFF_DONE:
        return f"its schedule has ended ({run.get('ended') or 'no longer declared'})"
    if words.ahead_of_due(dict(run)):
        return "it was a run by hand ahead of the due time: ask for another run by hand"
    if run.get("succeeded"):
        return "a run of that due time succeeded since"
    if run.get("running"):
        return "a run of that due time is running"
    if run.get("waiting"):
        return "a remake of that due time already waits for the next tick"
    if run.get("retry_pending"):
        return "a retry of that due time is pending"
    return None
