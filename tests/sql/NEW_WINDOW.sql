SELECT * FROM tickwork_runs AS r
WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1 AND r.id < min(max('z' || printf('%012x', CAST(?2 AS INTEGER)), ?3),
                                 'z' || printf('%012x', CAST(?4 AS INTEGER))) AND (r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4
ORDER BY r.id DESC LIMIT CAST(?5 AS INTEGER)