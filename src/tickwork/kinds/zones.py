"""Time zones are the vendored `tzdata` package's, on CPython and on the Worker alike.

A Worker has no system zone files; CPython reads them first (`zoneinfo`'s TZPATH), and they hold
names tzdata does not (`posix/Europe/Berlin`, `right/UTC`, `localtime`) and may be of another
release. So the build, the Worker and the tests accept exactly the zones tzdata lists, and read
each from tzdata's own files.
"""

from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo


@cache
def vendored_zones() -> frozenset[str]:
    """Every zone the vendored tzdata ships, as its `zones` list names them."""
    from importlib import resources  # at first use: a Worker's snapshot reads no file at import

    return frozenset(resources.files("tzdata").joinpath("zones").read_text().split())


def is_zone(name: object) -> bool:
    return isinstance(name, str) and name in vendored_zones()


def zone_info(name: str) -> "ZoneInfo":
    """The ZoneInfo of a vendored zone, read from tzdata's file; KeyError for any other name."""
    if not is_zone(name):
        raise KeyError(f"{name!r} is not a time zone of the vendored tzdata")
    return _read(name)


@cache  # one instance a zone, as ZoneInfo(name) keeps: calendars of a zone share its cache
def _read(name: str) -> "ZoneInfo":
    from importlib import resources
    from zoneinfo import ZoneInfo

    with resources.files("tzdata").joinpath("zoneinfo", *name.split("/")).open("rb") as file:
        return ZoneInfo.from_file(file, key=name)
