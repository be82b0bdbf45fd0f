e.emitted_at >= ?1 AND e.emitted_at < ?2 AND (e.emitted_at, d.id) > (?3, ?4)
  AND (?5 IS NULL OR d.state = ?5) AND (?6 IS NULL OR d.queue GLOB ?6) AND (?7 IS NULL OR e.name GLOB ?7)
  AND (?8 IS NULL OR (SELECT r.schedule FROM tickwork_runs AS r WHERE r.id = e.run) GLOB ?8)