
SELECT * FROM tickwork_backfills WHERE ?1 IS NULL OR schedule = ?1
ORDER BY state <> 'pending', requested_at DESC LIMIT CAST(?2 AS INTEGER)
