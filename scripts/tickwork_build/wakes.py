"""`[tool.tickwork] wakes`: the producer binding a tick sends its wakes through (issue 27,
tickwork/tick/wakes.py), delayed messages that tick again at the second a `once` item or a retry
under a minute runs. The Worker must consume that binding's queue itself, and no `@consumer` may
read it: its messages are tickwork's. A binding the build cannot send to, or a queue the Worker
does not consume, would leave every wake unsent or unread, and the items late, unsaid."""

from .problems import Problem
from .project import Project
from .settings import line_of


def check_wakes(project: Project, consumers: list[dict]) -> list[Problem]:
    """`settings.wakes_invalid` where `wakes` is set and is not a producer binding whose queue the
    Worker consumes and no declared consumer reads."""
    value = project.wakes
    if value is None:
        return []
    producers = {p["binding"]: p["queue"] for p in project.queue_producers}
    consumed = {c["queue"] for c in project.queue_consumers}
    queue = producers.get(value) if isinstance(value, str) else None
    if queue is None:
        bound = ", ".join(producers) or "none"
        what = (f"wakes = {value!r} is not a producer binding of {project.config_file} (bound: {bound})"
                if isinstance(value, str) else f"wakes = {value!r} is not the name of a producer binding")
        named = value if isinstance(value, str) and value else "WAKES"
        mend = (f'add [[queues.producers]] binding = "{named}", queue = "tickwork-wakes" and [[queues.consumers]] '
                f'queue = "tickwork-wakes" to {project.config_file}')
    elif queue not in consumed:
        what = f"wakes = {value!r} sends to queue `{queue}`, which the Worker does not consume"
        mend = f'add [[queues.consumers]] queue = "{queue}" to {project.config_file}: the Worker ticks on its messages'
    elif any(c["queue"] == queue for c in consumers):
        source = next(c["source"] for c in consumers if c["queue"] == queue)
        what = f"wakes = {value!r} sends to queue `{queue}`, which the consumer at {source} reads"
        mend = "give the wakes a queue of their own: their messages are tickwork's, not a consumer's"
    else:
        return []
    return [Problem("settings.wakes_invalid", what, mend, "pyproject.toml", _line(project))]


def _line(project: Project) -> int:
    return line_of((project.root / "pyproject.toml").read_text(encoding="utf-8"), ("tool", "tickwork"), "wakes")
