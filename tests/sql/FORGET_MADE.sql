
DELETE FROM tickwork_backfilled
WHERE (schedule, at) IN (SELECT schedule, from_at FROM tickwork_backfills WHERE id = ?2 AND remake_of = ?1)
