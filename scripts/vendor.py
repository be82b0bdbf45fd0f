"""`make vendor`: the Worker's packages, pyproject.toml's `[project].dependencies`, into
python_modules/.

That list is the one list of what the Worker runs besides its own code; `pywrangler sync`
vendors the same one. Each entry is pinned exactly and the list is complete: the packages are
installed as pure-Python wheels without their dependencies (tests/test_dependencies.py checks
that none needs a package the list lacks).
"""

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PINNED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*==[0-9][0-9A-Za-z.+!]*")


def worker_dependencies(pyproject: Path = ROOT / "pyproject.toml") -> list[str]:
    """`name==version` for each package the Worker vendors; exits naming any not pinned so."""
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    loose = [entry for entry in dependencies if not PINNED.fullmatch(entry)]
    if loose:
        raise SystemExit(
            f"{pyproject}: [project].dependencies must pin each package exactly "
            f"(name==version): {', '.join(loose)}"
        )
    return dependencies


def main() -> None:
    target = ROOT / "python_modules"
    dependencies = worker_dependencies()
    shutil.rmtree(target, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         "--target", str(target), "--no-deps", "--only-binary=:all:", "--no-compile",
         *dependencies],
        check=True,
    )


if __name__ == "__main__":
    main()
