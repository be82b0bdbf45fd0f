"""The declared `concurrency:` checked across declarations: schedules that share a key (named, or
the action's own) give it one limit. Each row goes only while fewer than its own limit of the key's
runs are under way, so two limits of one key would hold one schedule back at a count the other
passes: almost surely a slip."""

from tickwork.kinds.concurrency import workflow_key

from .problems import Problem
from .schedules import Spec


def limits_apart(specs: list[Spec]) -> list[Problem]:
    """A problem at each declaration whose key an earlier one gave another limit."""
    first: dict[str, Spec] = {}
    problems = []
    for spec in specs:
        if spec.concurrency_limit is None:
            continue
        own = workflow_key(spec.workflow) if spec.workflow else f"{spec.module}.{spec.action}"
        key = spec.concurrency_key or own  # the action's own (a Workflow's), as the runtime names it
        earlier = first.setdefault(key, spec)
        if earlier.concurrency_limit != spec.concurrency_limit:
            file, _, line = spec.source.rpartition(":")
            named = (f"key `{key}`" if spec.concurrency_key else f"Workflow `{spec.workflow}`" if spec.workflow
                     else f"action `{spec.action}`")
            problems.append(Problem(
                "schedule.concurrency_invalid",
                f"`concurrency:` gives the {named} a limit of {spec.concurrency_limit}; {earlier.name} "
                f"({earlier.source}) gives it {earlier.concurrency_limit}",
                f"give every schedule of the {named} one limit, e.g. {earlier.concurrency_limit}",
                file, int(line) if line.isdecimal() else 0, spec.name))
    return problems
