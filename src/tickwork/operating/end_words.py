"""Why a handed-over schedule ended, and what links it to others, in the words `why`, `history`,
`tickwork schedules` and the console all say: "replaced by <id>", "replaces <id>", "made its 5
calls", "2 of 5 calls made"."""

import json
from typing import Any, Mapping

from ..store.ends import MADE_ITS_CALLS
from ..store.replaces import REPLACED


def ended_words(row: Mapping[str, Any]) -> str | None:
    """Why the row's schedule ended, in words; None where it has not (or a deploy removed it)."""
    ended = row.get("ended")
    if ended == REPLACED:
        return f"replaced by {row.get('replaced_by')}"
    if ended == MADE_ITS_CALLS:
        return f"made its {_calls(row.get('calls_made'))}"
    return ended


def _calls(count: object) -> str:
    return f"{count} call{'' if count == 1 else 's'}"


def _entry(row: Mapping[str, Any]) -> dict:
    try:
        return json.loads(row.get("timing") or "{}")
    except ValueError:
        return {}


def links(row: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What the row's schedule replaces and was replaced by, and its count, as facts: (what,
    words). Its start is said in its rule (words.run_settings_words)."""
    entry, said = _entry(row), []
    if row.get("replaces"):
        said.append(("replaces", f"replaces {row['replaces']}"))
    if row.get("ended") == REPLACED and row.get("replaced_by"):
        said.append(("replaced by", f"replaced by {row['replaced_by']}"))
    if entry.get("times"):
        made = int(row.get("calls_made") or 0)
        said.append(("calls", f"{made} of {_calls(entry['times'])} made (`times`): a call counts once its last "
                              "attempt ends, succeeded or failed; skipped and missed ones do not"))
    return said
