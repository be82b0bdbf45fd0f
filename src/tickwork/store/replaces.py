"""A handed-over schedule changed in place: the old one ended `replaced` and the new one handed
over in one batch, linked both ways, so an app never has a moment with both or neither."""

from ..database import Database, Statement
from .schedules import COMES_BACK, ENDED_TO_COME_BACK, Handed
from .sql import json_rows

REPLACED = "replaced"  # what the old one's row says it ended for; `replaced_by` names the new one

# ?1 a JSON list of HANDED rows, each with the id it replaces last. Only where that one is still
# going on (as schedules.ITEM_CANCELLABLE), read in the batch REPLACE_END ends it in: of two
# replaces of one id racing, the second finds it ended and writes nothing. The label carries over
# unless a new one is given; a new one already going on is left as it is (HAND_OVER's rule). The
# concurrency key and limit are the new one's own (part of its id), none where it names none.
REPLACING = json_rows(*Handed.COLUMNS, "replaces")
REPLACE_HAND_OVER = f"""
{REPLACING}
INSERT INTO tickwork_schedules
    (name, action, timing, input, form, every_ms, due_at, expires_at, first_tick, last_tick, label, replaces,
     jitter_ms, jitter_seed, concurrency_key, concurrency_limit)
SELECT j.name, j.action, j.timing, j.input, j.form, j.every_ms, j.due_at, j.expires_at, j.tick, j.tick,
       IFNULL(j.label, o.label), j.replaces, j.jitter_ms, j.jitter_seed, j.concurrency_key, j.concurrency_limit
FROM j JOIN tickwork_schedules AS o ON o.name = j.replaces AND o.action IS NOT NULL AND o.ended IS NULL
WHERE true
ON CONFLICT (name) DO UPDATE
SET {COMES_BACK}
WHERE ended IN {ENDED_TO_COME_BACK}
"""

# Then, in the same batch and of the same rows, the old ones end (?2 the moment): only those still
# going on, the ones the hand-over above read so, and only where their new one is now going on:
# one the hand-over left ended as it was (a one-off already made, one that made its `times`
# calls) leaves its old one going on too, never neither. It returns each old one still going on
# that it read, with `ended` set where it ended it.
REPLACE_END = f"""
{REPLACING}, k AS (
    SELECT j.name, j.replaces,
           EXISTS (SELECT 1 FROM tickwork_schedules AS n WHERE n.name = j.name AND n.ended IS NULL) AS taken
    FROM j)
UPDATE tickwork_schedules AS s
SET removed_at = CASE WHEN k.taken THEN ?2 ELSE s.removed_at END,
    ended = CASE WHEN k.taken THEN '{REPLACED}' END,
    replaced_by = CASE WHEN k.taken THEN k.name END
FROM k WHERE s.name = k.replaces AND s.action IS NOT NULL AND s.ended IS NULL
RETURNING name, ended
"""


def replace_statements(chunks: list[str], now: int) -> list[Statement]:
    """Per chunk (a JSON list of HANDED rows, each with the id it replaces last): the hand-over,
    then the ends."""
    return [statement for chunk in chunks
            for statement in ((REPLACE_HAND_OVER, (chunk,)), (REPLACE_END, (chunk, now)))]


class Replaces:
    """Replaces of handed-over schedules, over one database."""

    def __init__(self, db: Database):
        self.db = db

    async def replace_many(self, chunks: list[str], now: int) -> tuple[set[str], set[str]]:
        """Ends each old id of `chunks` and hands its new schedule over, in one batch, where the
        old one was still going on and the new one is then: the old ids it ended, and those it
        left going on because their new one had already ended."""
        results = await self.db.batch(replace_statements(chunks, now))
        read = [row for rows in results[1::2] for row in rows]
        return {row["name"] for row in read if row["ended"]}, {row["name"] for row in read if not row["ended"]}
