"""The console's termination of a running Workflow instance: the run page's button for a run
going on through a Workflow, and the POST it sends (`/run/terminate`, with the console's CSRF
token, as its other actions), answered as `tickwork terminate RUN` answers."""

from ..errors import ScheduleError
from ..operating.terminate import UNKNOWN, terminate
from .html import Html
from .parts import Frame, button

def terminate_action(frame: Frame, run: dict, back: str) -> list[Html]:
    """The button, on a running run whose Workflow instance is open (its row, read with the run's
    record) and not asked to end already; the action checks it again."""
    if run["outcome"] != "running" or run.get("workflow_binding") is None or run.get("terminate_by"):
        return []
    return [button(frame, "/run/terminate", "Terminate its Workflow instance", back, id=run["id"])]


async def terminated(db, frame: Frame, id: str, back: str):
    """The instance of the running run `id` terminated by the next tick, as the operator's."""
    from . import pages
    from .routes import respond, see_other  # the console's answers, where every action's are made

    try:
        asked = await terminate(db, id, frame.who, frame.now)
    except ScheduleError as refused:
        status, title = (404, "Not found") if refused.code == UNKNOWN else (409, "Nothing changed")
        return respond(status, pages.answer(frame, title, f"{refused.code}: {refused.message}; nothing changed.",
                                            back, True))
    return see_other(frame, back, f"{asked.words(frame.who)} (logged as {frame.who}).")
