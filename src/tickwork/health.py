"""The health route a Worker's `fetch` may opt in to, for an uptime monitor: the last tick, its
age and the schedules failing (schedule_store.IS_FAILING, the definition the console, the command
and the alerts read too); 200 while ticks come, 503 once the last is older
than the threshold, and, when the app asks with `failing=503`, while a schedule is failing. It
reads and changes nothing else, and tells no run's details."""

from .database import Database
from .schedule_store import ScheduleStore
from .times import MINUTE, iso

THRESHOLD = 3 * MINUTE


async def health(db: Database, now: int, threshold: int = THRESHOLD, failing: int | None = None) -> tuple[int, dict]:
    """(HTTP status, JSON body) at `now` (epoch ms). `failing`: the status to answer while a
    declared schedule is failing (the body's `failing` names them); 200 if None."""
    last, made, names = await ScheduleStore(db).health()
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
