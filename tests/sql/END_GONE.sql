
UPDATE tickwork_backfills AS b SET state = 'ended', ended_at = ?2
WHERE b.id IN (SELECT value FROM json_each(?1)) AND b.state = 'pending'
  AND NOT EXISTS (SELECT 1 FROM tickwork_schedules AS s WHERE s.name = b.schedule AND NOT (s.name IS NULL OR (s.ended IS NOT NULL AND s.ended != 'done')))
