"""Events and queue consumers, checked against wrangler.toml's queues: an event is sent through a
producer binding, a consumer reads a queue the Worker consumes, one consumer a queue."""

import inspect
from dataclasses import dataclass
from types import ModuleType

from tickwork.declare import CONSUMES
from tickwork.kinds.cron_syntax import shown
from tickwork.events import Event

from .problems import Problem
from .project import Project


@dataclass(frozen=True)
class Queues:
    """What the manifest says of the app's queues."""

    producers: dict  # binding: the queue's name
    consumers: list  # one entry a declared consumer: queue, module, action, max_retries, source
    bound: bool  # any queue bound, produced or consumed: the Worker ticks at 10-second marks
    declared: list  # (file, line) of each event and consumer, for store_required


def check_queues(project: Project, modules: dict[str, ModuleType | None]) -> tuple[Queues, list[Problem]]:
    producers = {p["binding"]: p["queue"] for p in project.queue_producers}
    consumed = {c["queue"]: c for c in project.queue_consumers}
    problems: list[Problem] = []
    declared: list[tuple[str, int]] = []
    events: dict[str, Event] = {}
    consumers: dict[str, dict] = {}
    for module in (m for m in modules.values() if m is not None):
        for value in list(vars(module).values()):
            if isinstance(value, Event) and value.name not in events:
                events[value.name] = value
                file, line = _where(project, value.source)
                declared.append((file, line))
                problems += _event_problems(value, producers, file, line)
            consumes = getattr(value, CONSUMES, None)
            if consumes and getattr(value, "__module__", None) == module.__name__:
                queue, file, line = consumes
                file = project.relative(file)
                declared.append((file, line))
                problems += _consumer_problems(value, queue, consumed, consumers, file, line)
                if not isinstance(queue, str):
                    continue
                consumers.setdefault(queue, {
                    "queue": queue, "module": module.__name__, "action": value.__name__,
                    "max_retries": int(consumed.get(queue, {}).get("max_retries", 3)), "source": f"{file}:{line}",
                })
    return Queues(producers, list(consumers.values()), bool(producers or consumed), declared), problems


def _where(project: Project, source: str) -> tuple[str, int]:
    file, _, line = source.rpartition(":")
    return project.relative(file), int(line or 1)


def _event_problems(event: Event, producers: dict, file: str, line: int) -> list[Problem]:
    if isinstance(event.queue, str) and event.queue in producers:
        return []
    bound = ", ".join(producers) or "none"
    return [Problem(
        "event.queue_unbound",
        f"event `{event.name}` is sent through `{event.queue}`, which wrangler.toml does not bind "
        f"as a queue producer (bound: {bound})",
        f'add [[queues.producers]] with binding = "{event.queue}" and the queue\'s name to wrangler.toml',
        file, line,
    )]


def _consumer_problems(action, queue, consumed: dict, consumers: dict, file: str, line: int) -> list[Problem]:
    problems = []
    if not isinstance(queue, str) or not queue:
        said = "no queue" if callable(queue) else f"{type(queue).__name__} {shown(repr(queue))}, not a queue's name"
        problems.append(Problem(
            "consumer.queue_unbound",
            f"`{action.__name__}` consumes {said}",
            'name a queue of wrangler.toml\'s [[queues.consumers]] as a string: `@consumer("shop-events")`',
            file, line,
        ))
    elif queue not in consumed:
        names = ", ".join(consumed) or "none"
        problems.append(Problem(
            "consumer.queue_unbound",
            f"`{action.__name__}` consumes queue `{queue}`, which wrangler.toml's [[queues.consumers]] "
            f"does not name (consumed: {names})",
            f'add [[queues.consumers]] with queue = "{queue}" to wrangler.toml',
            file, line,
        ))
    if isinstance(queue, str) and queue in consumers:
        problems.append(Problem(
            "consumer.duplicate",
            f"queue `{queue}` has a consumer already, `{consumers[queue]['action']}` at {consumers[queue]['source']}",
            "declare one consumer a queue; it reads `call.input`, so one action can tell messages apart",
            file, line,
        ))
    if not inspect.iscoroutinefunction(action) or inspect.signature(action).parameters or "." in action.__qualname__:
        problems.append(Problem(
            "consumer.action_invalid",
            f"`{action.__qualname__}` is not an `async def` function without parameters at the top level of its module",
            f"declare it as `async def {action.__name__}():` and read the message from `call.input`",
            file, line,
        ))
    return problems
