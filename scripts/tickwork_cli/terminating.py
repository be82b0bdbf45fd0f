"""`tickwork terminate RUN`: a running Workflow instance terminated by the next tick, as the
console's run page asks for it (tickwork.operating.terminate), logged with who asked."""

from tickwork.errors import ScheduleError
from tickwork.operating.terminate import terminate as terminate_instance
from tickwork.store.operator import OperatorStore

from .verbs import Answer, OperatorError, _instant


async def terminate(store: OperatorStore, now: int, run: str, who: str) -> Answer:
    try:
        asked = await terminate_instance(store.db, run, who, now)
    except ScheduleError as refused:
        raise OperatorError(str(refused)) from None
    data = {"verb": "terminate", "run": run, "schedule": asked.run["schedule"], "changed": True, "who": who,
            "workflow": asked.run["binding"], "logged": _instant(now, now)}
    return Answer(data, [f"{asked.words(who)} (logged as {who})"])
