
SELECT * FROM tickwork_runs AS r WHERE r.id >= 'z' || printf('%012x', max(CAST(?1 AS INTEGER), 0)) AND r.tick_at >= ?1
UNION ALL
SELECT * FROM tickwork_runs AS r INDEXED BY tickwork_runs_by_tick WHERE r.id < 'z' AND r.tick_at >= ?1