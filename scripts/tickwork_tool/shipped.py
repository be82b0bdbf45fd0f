"""What the tools' wheel (tickwork-dev, scripts/pyproject.toml) ships beside the code: the host's
files, its Node side's package.json and package-lock.json, and tickwork's own migrations.
Installed, they sit under this package; run from a checkout of this repository, they are its
folders."""

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent.parent
_IN_A_CHECKOUT = {"host": CHECKOUT / "scripts" / "host", "node": CHECKOUT, "migrations": CHECKOUT / "migrations"}
# tickwork's migrations are numbered 0001 to 0099; the app's start at 0100.
TICKWORKS_MIGRATION = re.compile(r"00[0-9][0-9]_[A-Za-z0-9_]+\.sql")


def shipped(name: str) -> Path:
    """The folder of `host`, `node` or `migrations`."""
    installed = HERE / name
    return installed if installed.is_dir() else _IN_A_CHECKOUT[name]


def host_files() -> list[Path]:
    return sorted(path for path in shipped("host").iterdir() if path.is_file() and not path.name.startswith("_"))


def migrations() -> list[Path]:
    return sorted(path for path in shipped("migrations").iterdir() if TICKWORKS_MIGRATION.fullmatch(path.name))
