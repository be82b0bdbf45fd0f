
SELECT d.*, e.name, e.body, e.run FROM tickwork_deliveries AS d JOIN tickwork_events AS e ON e.id = d.event
ORDER BY e.emitted_at, d.id
