"""What an operator reads of the deploys: each marker in words, and the deploy that preceded a
run skipped or missed around it, which `tickwork deploys`, `why`, `history` and the console all
render (as operating/views.py does for a schedule)."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..store.deploys import Deploy, preceding
from ..times import HOUR
from .words import iso, when

# A run skipped or missed up to an hour after a deploy is shown beside it: the ticks just after a
# deploy are those that find what it removed, moved or changed.
AROUND = HOUR
MOST_NAMES = 5  # names a sentence lists before it says how many more


@dataclass(frozen=True)
class DeployView:
    id: int
    at: int
    version: str | None
    tag: str | None
    version_at: str | None
    added: list[str]
    removed: list[str]
    changed: dict[str, list[str]]
    first: bool
    words: str

    def item(self) -> dict[str, Any]:
        """The view as --json and the console's data give it."""
        return {"id": self.id, "at": {"ms": self.at, "utc": iso(self.at)}, "version": self.version, "tag": self.tag,
                "version_at": self.version_at, "added": self.added, "removed": self.removed,
                "changed": self.changed, "first": self.first, "words": self.words}


def deploy_view(deploy: Deploy) -> DeployView:
    v = deploy.version
    return DeployView(deploy.id, deploy.at, v.id, v.tag, v.timestamp, deploy.added, deploy.removed, deploy.changed,
                      deploy.first, deploy_words(deploy))


def _names(names: Sequence[str]) -> str:
    shown = list(names[:MOST_NAMES])
    more = len(names) - len(shown)
    if more:
        return ", ".join(shown) + f" and {more} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def what_changed(deploy: Deploy) -> str:
    """`added reminders, removed digest, changed retry of billing`; or why it says nothing."""
    said = []
    if deploy.added:
        said.append(f"added {_names(deploy.added)}")
    if deploy.removed:
        said.append(f"removed {_names(deploy.removed)}")
    by_parts: dict[str, list[str]] = {}
    for name, parts in deploy.changed.items():
        by_parts.setdefault(" and ".join(parts), []).append(name)
    said += [f"changed {parts} of {_names(names)}" for parts, names in by_parts.items()]
    if said:
        return ", ".join(said)
    return ("the first deploy recorded: what came before it is not known" if deploy.first
            else "no schedule added, removed or changed")


def version_words(deploy: Deploy) -> str:
    """` (version 7c1e9a40…, v42)`, where a version-metadata binding gave one; else nothing."""
    v = deploy.version
    if v.id is None:
        return ""
    short = v.id if len(v.id) <= 8 else v.id[:8] + "…"
    return f" (version {short}" + (f", {v.tag}" if v.tag else "") + ")"


def deploy_words(deploy: Deploy) -> str:
    """`deployed 2026-12-02 09:14 UTC (version 7c1e…): added reminders, changed retry of billing`."""
    return f"deployed {when(deploy.at)}{version_words(deploy)}: {what_changed(deploy)}"


def skipped_or_missed(run: dict[str, Any]) -> bool:
    """A run a deploy may explain: a skip, or one that found occurrences missed."""
    return run.get("outcome") == "skipped" or run.get("covers") is not None


def deploy_before(run: dict[str, Any], deploys: Sequence[Deploy]) -> Deploy | None:
    """The deploy (of `deploys`, oldest first) that preceded a run skipped or missed by no more
    than AROUND, by the tick that made it; None for any other run."""
    if not skipped_or_missed(run) or run.get("tick_at") is None:
        return None
    return preceding(list(deploys), int(run["tick_at"]), AROUND)


def span_of(runs: Sequence[dict[str, Any]]) -> tuple[int, int] | None:
    """The ticks a page of runs spans, as Deploys.around reads the deploys beside them."""
    ticks = [int(run["tick_at"]) for run in runs if run.get("tick_at") is not None and skipped_or_missed(run)]
    return (min(ticks), max(ticks)) if ticks else None
