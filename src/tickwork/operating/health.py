"""The health route a Worker's `fetch` may opt in to, for an uptime monitor: the last tick, its
age and the schedules failing (schedule_store.IS_FAILING, the definition the console, the command
and the alerts read too); 200 while ticks come, 503 once the last is older than the threshold,
and, when the app asks with `failing=503`, while a schedule is failing; 503 with
`migration.out_of_date` while the store's tables are older than this tickwork, which refuses to
tick against them. It reads and changes nothing else, and tells no run's details."""

from ..database import Database
from ..store.facade import ScheduleStore
from ..store.app_row import out_of_date
from ..times import MINUTE, iso

TICKS_STOPPED_AFTER = 3 * MINUTE  # how old the last tick may be before ticks count as stopped


async def health(db: Database, now: int, threshold: int = TICKS_STOPPED_AFTER, failing: int | None = None,
                 binding: str = "DB") -> tuple[int, dict]:
    """(HTTP status, JSON body) at `now` (epoch ms). `failing`: the status to answer while a
    declared schedule is failing (the body's `failing` names them); 200 if None.
    `binding` is the store's D1 binding, named where its migrations are behind."""
    store = ScheduleStore(db)
    problem = out_of_date(await store.schema(), binding)
    if problem:  # the old tables may not answer HEALTH, and no tick is made against them
        return 503, {"ok": False, "last_tick": None, "last_tick_age_s": None, "threshold_s": threshold // 1000,
                     "failing": [], "migration": problem}
    last, made, names = await store.health()
    age = None if made is None else now - made  # on the clock: a tick by hand ahead does not hide a stop
    stopped = age is None or age > threshold
    status = 503 if stopped else failing if failing is not None and names else 200
    body = {
        "ok": status == 200,
        "last_tick": None if last is None else iso(last),
        "last_tick_age_s": None if age is None else age // 1000,
        "threshold_s": threshold // 1000,
        "failing": names,
    }
    return status, body
