
INSERT INTO tickwork_deliveries (id, event, queue, state, attempts, lease_run, lease_until, updated_at)
SELECT ?5, e.id, ?6, 'running', 1, ?7, ?8, ?3 FROM tickwork_events AS e WHERE e.id = ?4
ON CONFLICT (id) DO NOTHING

RETURNING id, queue, (SELECT name FROM tickwork_events WHERE id = event) AS name,
  (SELECT body FROM tickwork_events WHERE id = event) AS body,
  (SELECT trace FROM tickwork_events WHERE id = event) AS trace

