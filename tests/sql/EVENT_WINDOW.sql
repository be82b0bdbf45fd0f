SELECT e.id, e.emitted_at FROM tickwork_events AS e INDEXED BY tickwork_events_by_emitted
WHERE e.emitted_at >= ?1 AND e.emitted_at < ?2 AND e.emitted_at >= ?3
ORDER BY e.emitted_at, e.id LIMIT CAST(?10 AS INTEGER)