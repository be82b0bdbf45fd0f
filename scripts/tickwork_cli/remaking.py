"""`tickwork remake RUN`: the due time of a failed run made again by the next tick, as the
console's run page asks for it (tickwork.operating.remake), logged with who asked."""

from tickwork.errors import ScheduleError
from tickwork.operating.remake import remake as remake_due_time
from tickwork.store.operator import OperatorStore

from .verbs import Answer, OperatorError, _instant


async def remake(store: OperatorStore, now: int, run: str, who: str) -> Answer:
    try:
        asked = await remake_due_time(store.db, run, who, now)
    except ScheduleError as refused:
        raise OperatorError(str(refused)) from None
    data = {"verb": "remake", "run": run, "schedule": asked.run["schedule"], "changed": True, "who": who,
            "due": _instant(asked.run["due_at"], now), "backfill": asked.backfill, "logged": _instant(now, now)}
    return Answer(data, [f"{asked.words(who)} (logged as {who})"])
