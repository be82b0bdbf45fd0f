
DELETE FROM tickwork_runs WHERE id IN (SELECT id FROM (
    SELECT id FROM (
        SELECT id FROM tickwork_runs INDEXED BY tickwork_runs_by_tick
        WHERE id < 'z' AND tick_at < ?1 AND outcome != 'running' ORDER BY tick_at LIMIT 1000)
    UNION ALL
    SELECT id FROM (
        SELECT id FROM tickwork_runs
        WHERE id > 'z' AND id < 'z' || printf('%012x', CAST(?1 AS INTEGER)) AND tick_at < ?1 AND outcome != 'running'
        ORDER BY id LIMIT 1000)
) LIMIT 1000)
