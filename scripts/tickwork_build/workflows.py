"""`workflow: REPORTS`: a schedule whose run creates an instance of a Cloudflare Workflow, checked
against the Workflow bindings the Worker's configuration declares (`[[workflows]]`)."""

import re
from typing import Collection, Mapping

from tickwork.errors import Invalid

from .declaration import Item

BINDING = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def workflow_of(text: str, bound: Collection[str]) -> str:
    """The binding a `workflow:` names, one the Worker binds: else it could never be created."""
    if not BINDING.fullmatch(text):
        raise Invalid("schedule.workflow_unbound", f"`workflow: {text}` is not a binding's name",
                      "name the Workflow's binding, e.g. `workflow: REPORTS`")
    if text not in bound:
        known = ", ".join(sorted(bound)) or "none"
        raise Invalid("schedule.workflow_unbound",
                      f"`workflow: {text}` names a Workflow the Worker does not bind (its bindings: {known})",
                      f'add [[workflows]] with binding = "{text}", name and class_name to wrangler.toml, '
                      "or name a bound one")
    return text


def run_or_workflow(written: Mapping[str, Item]) -> list[tuple[str, int, str, str]]:
    """A run calls an action or creates a Workflow's instance, not both: (code, line, message, mend)."""
    if "workflow" in written and "run" in written:
        return [("schedule.item_invalid", written["run"].line,
                 "a schedule runs its `run:` action or creates its `workflow:` instance, not both",
                 "keep `workflow:` and do the action's work in the Workflow's steps, or keep `run:`")]
    return []


def workflow_bindings(wrangler: Mapping[str, object]) -> tuple[str, ...]:
    """The bindings of the configuration's `[[workflows]]`, each a table with a string `binding`."""
    tables = wrangler.get("workflows", [])
    if not isinstance(tables, list):
        return ()
    return tuple(t["binding"] for t in tables if isinstance(t, dict) and isinstance(t.get("binding"), str))
