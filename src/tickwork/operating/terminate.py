"""A running Workflow instance terminated, as the console's run page and `tickwork terminate RUN`
ask for it: the one batch that asks for it (store/terminations.py), and what is said. A refusal
is a ScheduleError: `terminate.unknown` (no such run) or `terminate.not_running` (and why)."""

from dataclasses import dataclass

from ..database import Database, Row
from ..errors import ScheduleError
from ..store.terminations import request_terminate
from .words import when

UNKNOWN = "terminate.unknown"
NOT_RUNNING = "terminate.not_running"


@dataclass(frozen=True)
class Asked:
    run: Row

    def words(self, who: str) -> str:
        return (f"{self.run['schedule']} due {when(int(self.run['due_at']))}: its Workflow {self.run['binding']} "
                f"instance {self.run['id']} is terminated by the next tick, as {who} asked")


async def terminate(db: Database, id: str, who: str, now: int) -> Asked:
    """Asks for the Workflow instance of the running run `id` to be terminated by the next tick,
    logged as `who`'s."""
    asked, run = await request_terminate(db, id, who, now)
    if run is None:
        raise ScheduleError(UNKNOWN, f"there is no run {id}", "`tickwork history NAME` lists a schedule's runs")
    if not asked:
        raise ScheduleError(NOT_RUNNING, f"{run['schedule']} due {when(int(run['due_at']))}: {_why_not(run)}")
    return Asked(run)


def _why_not(run: Row) -> str:
    if run.get("terminate_by"):
        return f"its termination was asked for already, by {run['terminate_by']}"
    if run.get("binding") is None:
        return "it is no run through a Workflow" if run["outcome"] == "running" else f"it has ended {run['outcome']}"
    return f"it has ended {run['outcome']}"
