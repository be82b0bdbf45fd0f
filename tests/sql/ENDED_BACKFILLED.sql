
DELETE FROM tickwork_backfilled WHERE rowid IN (
    SELECT x.rowid FROM tickwork_backfilled AS x JOIN tickwork_backfills AS b ON b.id = x.backfill
    WHERE b.state != 'pending' AND b.ended_at < ?1 LIMIT 1000)
