"""A Workflow binding as the tick uses it: create an instance under an id, ask its status,
terminate it. On Workers the binding is the runtime's, which the SDK wraps (`WorkflowImpl`) to take
and give Python values; on CPython it is tickwork.testing.Workflows, which keeps the same API.
Nothing else in tickwork touches a Workflow binding."""

from __future__ import annotations

import sys
from typing import Any

from ..context import _worker


class Workflow:
    """One binding of the Worker's `env`, by its name (wrangler's `workflows[].binding`)."""

    def __init__(self, name: str, binding: Any):
        self.name = name
        self.binding = binding

    async def create(self, id: str, params: dict[str, Any]) -> None:
        await self.binding.create(_platform(self.binding, {"id": id, "params": params}))

    async def status(self, id: str) -> dict[str, Any]:
        """{"status": queued, running, paused, waiting, errored, terminated or complete,
        "output": ..., "error": ...}."""
        instance = await self.binding.get(id)
        said = _python(await instance.status())
        return dict(said) if isinstance(said, dict) else {"status": str(said)}

    async def terminate(self, id: str) -> None:
        instance = await self.binding.get(id)
        await instance.terminate()


def workflow(name: str) -> Workflow:
    """The binding `name` of the invocation's env; LookupError where it has none."""
    worker = _worker.get()
    binding = None if worker is None else getattr(worker.env, name, None)
    if binding is None:
        raise LookupError(f"the Worker binds no Workflow {name}: add it to wrangler.toml's `workflows`")
    return Workflow(name, binding)


def already_started(error: BaseException) -> bool:
    """Whether `create` refused the id as an instance's that exists: the run's instance was
    created by an earlier attempt at the same claim, not a second run."""
    said = str(error).lower()
    return "already exists" in said or "already_exists" in said


def not_found(error: BaseException) -> bool:
    """Whether the binding refused an id as no instance's (`instance.not_found`)."""
    said = str(error).lower()
    return "not found" in said or "not_found" in said


def _platform(binding: Any, value: dict[str, Any]) -> Any:
    """`value` as the binding takes it: the SDK's wrapper of a Workflow binding (`WorkflowImpl`)
    and the stand-in take Python; a bare JavaScript binding, JavaScript."""
    if sys.platform != "emscripten":
        return value
    from pyodide.ffi import JsProxy, to_js  # type: ignore[import-not-found]

    if not isinstance(binding, JsProxy):
        return value
    from js import Object  # type: ignore[import-not-found]

    return to_js(value, dict_converter=Object.fromEntries)


def _python(value: Any) -> Any:
    return value.to_py() if hasattr(value, "to_py") else value
