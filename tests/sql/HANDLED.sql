
DELETE FROM tickwork_handled WHERE rowid IN (
    SELECT rowid FROM tickwork_handled WHERE handled_at < ?4 ORDER BY handled_at LIMIT 1000)
