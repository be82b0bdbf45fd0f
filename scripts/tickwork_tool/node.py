"""The host's Node side (wrangler, Miniflare, Pyodide), pinned, in the Worker's own node_modules/.

From the npm registry only: a project without a package.json gets tickwork's package.json and
package-lock.json and `npm ci`; one with its own gets the same pins added by `npm install
--save-exact`. The host's files are copied into node_modules/.tickwork-host/ at each use, so that
Node resolves `pyodide`, `miniflare` and `wrangler` from the project's node_modules/.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

from .shipped import host_files, shipped

HOST = Path("node_modules") / ".tickwork-host"
QUIET = {"WRANGLER_SEND_METRICS": "false", "WRANGLER_SEND_ERROR_REPORTS": "false", "WRANGLER_HIDE_BANNER": "true"}


class NodeMissing(Exception):
    """Node or npm is missing, or npm could not install the pins."""


def pins() -> dict[str, str]:
    return json.loads((shipped("node") / "package.json").read_text())["devDependencies"]


def missing(root: Path) -> dict[str, str]:
    """The pins not installed at their version in the project's node_modules/."""
    absent = {}
    for name, spec in pins().items():
        version = spec.rsplit("@", 1)[-1]  # an alias, "npm:pyodide@0.29.5", installs that version
        installed = root / "node_modules" / name / "package.json"
        if not installed.is_file() or json.loads(installed.read_text()).get("version") != version:
            absent[name] = spec
    return absent


def install(root: Path, say=print) -> None:
    """Installs what is missing of the pins; says what it did."""
    absent = missing(root)
    if not absent:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise NodeMissing("npm is not installed: install Node.js 20 (which brings npm), then run this again")
    if (root / "package.json").exists():
        command = [npm, "install", "--save-dev", "--save-exact", *(f"{n}@{v}" for n, v in absent.items())]
    else:
        for name in ("package.json", "package-lock.json"):
            shutil.copyfile(shipped("node") / name, root / name)
        say(f"added {root / 'package.json'} and package-lock.json: the host's Node side, pinned")
        command = [npm, "ci"]
    done = subprocess.run([*command, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
                          cwd=root, capture_output=True, text=True)
    if done.returncode != 0:
        raise NodeMissing(f"{' '.join(command)} failed:\n{done.stderr.strip()}")
    say("installed " + ", ".join(f"{n} {v}" for n, v in absent.items()) + f" into {root / 'node_modules'} (npm)")


def wrangler(root: Path) -> list[str]:
    return [str(root / "node_modules" / ".bin" / "wrangler")]


def environment() -> dict[str, str]:
    return {**os.environ, **QUIET}


def host_cli(root: Path) -> Path:
    """The host's command, copied afresh beside the project's node_modules."""
    target = root / HOST
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for file in host_files():
        shutil.copyfile(file, target / file.name)
    return target / "cli.mjs"
