
DELETE FROM tickwork_backfills WHERE id IN (
    SELECT id FROM tickwork_backfills AS b WHERE b.state != 'pending' AND b.ended_at < ?1
      AND NOT EXISTS (SELECT 1 FROM tickwork_backfilled AS x WHERE x.backfill = b.id) LIMIT 1000)
