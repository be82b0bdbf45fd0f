SELECT tick_at, id FROM (
    SELECT * FROM (SELECT tick_at, id FROM (SELECT * FROM tickwork_runs AS r
WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1 AND r.id < min(max('z' || printf('%012x', CAST(?2 AS INTEGER)), ?3),
                                 'z' || printf('%012x', CAST(?4 AS INTEGER))) AND (r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4
ORDER BY r.id DESC LIMIT CAST(?5 AS INTEGER)) LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1)
    UNION ALL
    SELECT * FROM (SELECT tick_at, id FROM (SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick WHERE r.id < 'z' AND r.tick_at >= ?1 AND (r.tick_at, r.id) < (?2, ?3) AND r.tick_at < ?4
ORDER BY r.tick_at DESC, r.id DESC LIMIT CAST(?5 AS INTEGER)) LIMIT 1 OFFSET CAST(?5 AS INTEGER) - 1))
ORDER BY tick_at DESC, id DESC LIMIT 1