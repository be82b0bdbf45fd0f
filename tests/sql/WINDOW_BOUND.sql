min(?2, IFNULL((SELECT CASE WHEN emitted_at > ?3 THEN emitted_at ELSE emitted_at + 1 END
                                  FROM (SELECT e.emitted_at FROM tickwork_events AS e INDEXED BY tickwork_events_by_emitted
WHERE e.emitted_at >= ?1 AND e.emitted_at < ?2 AND e.emitted_at >= ?3
ORDER BY e.emitted_at LIMIT 1 OFFSET CAST(?10 AS INTEGER) - 1)), ?2))