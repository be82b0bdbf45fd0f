"""`npx wrangler deploy` from a fresh clone uploads the Worker with its vendored packages.

Nothing but `npm ci` runs before it: wrangler's `[build] command` must set up, build and vendor
on its own. The dry run writes what a deploy would upload, offline. The clone is of the
committed HEAD: what is not committed is not tested here.
"""

import os
import re
import subprocess
import tomllib

from helpers import ROOT

QUIET = {"WRANGLER_SEND_METRICS": "false", "WRANGLER_SEND_ERROR_REPORTS": "false", "NO_COLOR": "1"}
# What a user's shell has, without the variables of the `make test` this runs under.
MAKE_VARIABLES = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")


def _run(command: list[str], cwd, timeout: float) -> None:
    env = {name: value for name, value in os.environ.items() if name not in MAKE_VARIABLES}
    done = subprocess.run(
        command, cwd=cwd, env={**env, **QUIET}, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}"


def _dist_info(requirement: str) -> str:
    """`python-dateutil==4.0.0` -> `python_dateutil-4.0.0.dist-info`, as wheels name it."""
    name, version = requirement.split("==")
    return f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}.dist-info"


def test_a_dry_run_deploy_from_a_fresh_clone_carries_every_pinned_package(tmp_path):
    clone, out = tmp_path / "clone", tmp_path / "upload"
    _run(["git", "clone", "--quiet", str(ROOT), str(clone)], tmp_path, timeout=120)
    _run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], clone, timeout=600)

    _run(["npx", "wrangler", "deploy", "--dry-run", "--outdir", str(out)], clone, timeout=1200)

    modules = out / "python_modules"
    uploaded = [path for path in out.rglob("*") if path.is_file()]
    assert (modules / "croniter" / "croniter.py").is_file()
    assert (modules / "dateutil" / "tz" / "tz.py").is_file()
    assert (modules / "tzdata" / "zoneinfo" / "Europe" / "Berlin").is_file()
    assert (modules / "workers" / "__init__.py").is_file()
    assert len(uploaded) > 500, f"only {len(uploaded)} files would be uploaded"
    pins = tomllib.loads((clone / "pyproject.toml").read_text())["project"]["dependencies"]
    installed = sorted(path.name.lower() for path in modules.glob("*.dist-info"))
    assert installed == sorted(_dist_info(pin) for pin in pins)
    assert (out / "entry.py").is_file() and (out / "tickwork_manifest.py").is_file()
