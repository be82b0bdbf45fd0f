"""The host's side inside Pyodide: what the Workers runtime does around a Python Worker.

The host runs this file in a namespace of its own: it is never a module the Worker can see, so
`sys.modules` holds only what the Worker and the runtime import.
"""

import importlib
import importlib.util
import sys
import time
from site import addsitedir


def arrange_search_path(session, python_modules, process_pth_files):
    """The runtime's order: the vendored packages just before site-packages, the Worker's own
    files (the bundle's root) after them."""
    for index, entry in enumerate(sys.path):
        if "site-packages" in entry:
            sys.path.insert(index, python_modules)
            break
    else:
        raise RuntimeError(f"no site-packages in sys.path: {sys.path}")
    sys.path.append(session)
    if process_pth_files:
        addsitedir(python_modules)
    importlib.invalidate_caches()


def import_main(name):
    """Imports the Worker's main module; returns it and the milliseconds the import took."""
    started = time.perf_counter()
    module = importlib.import_module(name)
    return module, (time.perf_counter() - started) * 1000


def entrypoint_methods(cls):
    return sorted(
        name
        for name in dir(cls)
        if not name.startswith("_") and callable(getattr(cls, name, None))
    )


async def call(instance, method, relaxed, *args):
    """A handler call as the runtime makes it: JS arguments converted the RPC way, the result
    converted back."""
    from pyodide.code import relaxed_call
    from workers import python_from_rpc, python_to_rpc

    bound = getattr(instance, method, None)
    if not callable(bound):
        raise TypeError(f"Method {method} does not exist")
    converted = [python_from_rpc(arg) for arg in args]
    result = relaxed_call(bound, *converted) if relaxed else bound(*converted)
    if hasattr(result, "__await__"):
        result = await result
    return python_to_rpc(result)


def loaded_modules():
    """[name, file] for every module imported so far; file is "" for built-in ones."""
    return [
        [name, getattr(module, "__file__", None) or ""]
        for name, module in sorted(sys.modules.items())
        if module is not None
    ]


def store_binding():
    """The D1 binding tickwork keeps its schedules in, if the Worker is a tickwork app."""
    manifest = sys.modules.get("tickwork_manifest")
    return getattr(manifest, "STORE", None)


def has_console(main):
    """Whether the Worker is a tickwork app (its entry's APP) whose tickwork has the console."""
    return getattr(main, "APP", None) is not None and importlib.util.find_spec("tickwork.console") is not None


_local_apps = {}


def _served_at(app, prefix: str):
    """The app as the local console serves it: its own, with the console at `prefix`."""
    import copy

    local = copy.copy(app)
    local.console = {"prefix": prefix}
    return local


async def serve_console(instance, main, request, prefix):
    """One request to the console the local host serves at `prefix`, its own path, with no login
    (the operator `local`): the host lets only this machine's own pages reach it (its Host and
    Origin checks), and a form still needs the console's CSRF token. The app's own prefix, if it
    sets one, stays the Worker's, behind its access checks."""
    from workers import python_from_rpc, python_to_rpc

    from tickwork.adapters.workers import serve_console
    from tickwork.console.access import LOCAL

    app = _local_apps.get(prefix) or _local_apps.setdefault(prefix, _served_at(main.APP, prefix))
    return python_to_rpc(await serve_console(app, instance.env, python_from_rpc(request), LOCAL))
