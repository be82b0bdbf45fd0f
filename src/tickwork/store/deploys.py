"""The deploy markers (`tickwork_deploys`, migration 0027): one for each change of the declared set,
recorded by the tick that notices it in the batch that seals the set as reconciled, and read by
`tickwork deploys`, `why`, `history` and the console."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..database import Database, Row
from .sql import json_lists

# What a deploy changed: the names added and removed, and for each changed one the parts of it
# that changed ("form", "retry", "overdue", "starts"... as tick/declared.described keeps them),
# told from the set the last marker kept.
Described = dict[str, dict[str, Any]]


@dataclass(frozen=True)
class Version:
    """The Worker's version, as a version-metadata binding gives it (env.<NAME>.id/.tag/.timestamp)."""

    id: str | None
    tag: str | None = None
    timestamp: str | None = None


# The set the newest marker kept, which the next deploy is told apart from: read only by the tick
# that reconciles a changed declared set.
LAST_DECLARED = "SELECT declared FROM tickwork_deploys ORDER BY id DESC LIMIT 1"

# The marker, in the reconcile's batch before its SEAL: written only while the app's row still holds
# another set than ?2 (the set being sealed), so of two ticks racing after a deploy the one whose
# batch comes second writes none.
MARK_DEPLOY = """
INSERT INTO tickwork_deploys (at, fingerprint, version_id, version_tag, version_at, declared, added, removed,
                              changed, first)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
WHERE (SELECT fingerprint FROM tickwork_app WHERE id = 1) IS NOT ?2
"""

# A page of markers, the newest first, from before the id ?1 (NULL: from the newest; keyset,
# through the primary key).
DEPLOYS_PAGE = """
SELECT * FROM tickwork_deploys WHERE ?1 IS NULL OR id < ?1 ORDER BY id DESC LIMIT CAST(?2 AS INTEGER)
"""

# The markers a page of runs spans (?1 to ?2), and the one before it, through the index by time.
DEPLOYS_AROUND = """
SELECT * FROM tickwork_deploys INDEXED BY tickwork_deploys_by_time WHERE at <= ?2 AND at >= (
    SELECT IFNULL(MAX(at), ?1) FROM tickwork_deploys INDEXED BY tickwork_deploys_by_time WHERE at <= ?1)
ORDER BY at LIMIT 200
"""

# The runs skipped or missed within ?2 ms after each deploy at the times ?1 (a JSON list: the
# overview's latest few), through the index by tick; read only by the overview.
RUNS_AFTER = """
SELECT d.value AS deployed, r.schedule, r.due_at, r.outcome, r.code
FROM json_each(?1) AS d JOIN tickwork_runs AS r INDEXED BY tickwork_runs_by_tick
    ON r.id < 'z' AND r.tick_at >= d.value AND r.tick_at <= d.value + ?2
WHERE r.outcome = 'skipped' OR r.covers IS NOT NULL
ORDER BY r.tick_at LIMIT CAST(?3 AS INTEGER)
"""


@dataclass(frozen=True)
class Deploy:
    """One marker: when the deploy was noticed, the Worker's version, and what it changed. `first`:
    the set it was told from is unknown (no marker before it, though the store was ticked before)."""

    id: int
    at: int
    version: Version
    added: list[str]
    removed: list[str]
    changed: dict[str, list[str]]
    first: bool = False

    @classmethod
    def from_row(cls, row: Row) -> Deploy:
        return cls(int(row["id"]), int(row["at"]), Version(row["version_id"], row["version_tag"], row["version_at"]),
                   json.loads(row["added"]), json.loads(row["removed"]), json.loads(row["changed"]),
                   bool(row["first"]))


def told_apart(before: Described | None, now: Described) -> tuple[list[str], list[str], dict[str, list[str]]]:
    """What was added, removed and changed (with the parts that changed) from `before` to `now`."""
    was = before or {}
    added = sorted(now.keys() - was.keys())
    removed = sorted(was.keys() - now.keys())
    changed = {name: sorted(part for part in now[name].keys() | was[name].keys()
                            if now[name].get(part) != was[name].get(part))
               for name in sorted(now.keys() & was.keys()) if now[name] != was[name]}
    return added, removed, changed


# D1 refuses a string or blob past its limit (SQLITE_TOOBIG, seen at 100,000 declared schedules):
# a marker keeps the declared set only where its JSON is at most this long ("null" otherwise, so
# the next deploy is told apart from nothing, as the first marker is), and of what it added,
# removed and changed, the names that fit in as much.
KEPT_MOST = 900_000


def kept(value: Any) -> str:
    """`value` as JSON, where it fits in KEPT_MOST; a list or dict cut to the leading entries that do."""
    said = json.dumps(value, sort_keys=True)
    if len(said) <= KEPT_MOST or not isinstance(value, (list, dict)):
        return said if len(said) <= KEPT_MOST else "null"
    entries = list(value.items()) if isinstance(value, dict) else list(value)
    fits = json_lists(entries, KEPT_MOST)[0][1]  # the leading entries the first chunk of that size holds
    return json.dumps(dict(entries[:fits]) if isinstance(value, dict) else entries[:fits], sort_keys=True)


class Deploys:
    """The markers: the last set kept, the marker's statement, and the pages read."""

    def __init__(self, db: Database):
        self.db = db

    async def last_declared(self) -> Described | None:
        return self.declared_in(await self.db.all(LAST_DECLARED))

    @staticmethod
    def declared_in(rows: list[Row]) -> Described | None:
        """The set LAST_DECLARED's rows kept; None where no marker is kept."""
        return json.loads(rows[0]["declared"]) if rows else None

    @staticmethod
    def marker(at: int, fingerprint: str, version: Version | None, before: Described | None, now: Described,
               ticked_before: bool) -> tuple[str, tuple[object, ...]]:
        """MARK_DEPLOY with its values: what `now` adds, removes and changes from `before`. A store
        ticked before with no marker kept (upgraded to 0027) has its first marker say so."""
        added, removed, changed = told_apart(before, now)
        first = before is None and ticked_before
        if first:
            added = []
        v = version or Version(None)
        whole = json.dumps(now, sort_keys=True)
        return MARK_DEPLOY, (at, fingerprint, v.id, v.tag, v.timestamp, whole if len(whole) <= KEPT_MOST else "null",
                             kept(added), kept(removed), kept(changed), int(first))

    async def page(self, before: int | None = None, limit: int = 50) -> list[Deploy]:
        """The markers from the newest, or from before the id `before`, at most `limit`."""
        rows = await self.db.all(DEPLOYS_PAGE, (before, limit))
        return [Deploy.from_row(row) for row in rows]

    async def around(self, start: int, end: int) -> list[Deploy]:
        """The markers from `start` to `end`, oldest first, and the one before `start`."""
        rows = await self.db.all(DEPLOYS_AROUND, (start, end))
        return [Deploy.from_row(row) for row in rows]

    async def runs_after(self, deploys: list[Deploy], within: int, most: int) -> dict[int, list[Row]]:
        """The runs skipped or missed up to `within` after each of `deploys`, by the deploy's time."""
        if not deploys:
            return {}
        found: dict[int, list[Row]] = {}
        for row in await self.db.all(RUNS_AFTER, (json.dumps([d.at for d in deploys]), within, most)):
            found.setdefault(int(row["deployed"]), []).append(row)
        return found


def preceding(deploys: list[Deploy], at: int, within: int) -> Deploy | None:
    """The latest of `deploys` (oldest first) at or before `at` and no more than `within` before it."""
    found = None
    for deploy in deploys:
        if deploy.at <= at:
            found = deploy
    return found if found is not None and at - found.at <= within else None

