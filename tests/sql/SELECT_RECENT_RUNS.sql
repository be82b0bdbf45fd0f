
SELECT r.*, s.form AS form, s.label AS label
FROM (
    SELECT * FROM (
        SELECT * FROM tickwork_runs AS r
        WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1 AND r.id < max('z' || printf('%012x', CAST(?2 AS INTEGER)), ?3) AND (r.tick_at, r.id) < (?2, ?3) AND (?4 IS NULL OR r.outcome = ?4) AND (?5 IS NULL OR r.schedule GLOB ?5)
        ORDER BY r.id DESC LIMIT CAST(?6 AS INTEGER))
    UNION ALL
    SELECT * FROM (
        SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick WHERE r.id < 'z' AND r.tick_at >= ?1 AND (r.tick_at, r.id) < (?2, ?3) AND (?4 IS NULL OR r.outcome = ?4) AND (?5 IS NULL OR r.schedule GLOB ?5)
        ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?6 AS INTEGER))
) AS r LEFT JOIN tickwork_schedules AS s ON s.name = r.schedule
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?6 AS INTEGER)
