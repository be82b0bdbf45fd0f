DELETE FROM tickwork_deliveries WHERE event IN (
SELECT e.id FROM tickwork_events AS e
WHERE e.emitted_at < ?2
  AND NOT EXISTS (SELECT 1 FROM tickwork_deliveries AS d WHERE d.event = e.id AND d.state != 'succeeded')
ORDER BY e.emitted_at LIMIT 1000
)