
RETURNING id, queue, (SELECT name FROM tickwork_events WHERE id = event) AS name,
  (SELECT body FROM tickwork_events WHERE id = event) AS body,
  (SELECT trace FROM tickwork_events WHERE id = event) AS trace
