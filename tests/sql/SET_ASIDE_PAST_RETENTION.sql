
SELECT id FROM tickwork_deliveries AS d
WHERE d.state IN ('dismissed', 'cancelled') AND d.updated_at < MIN(?1, ?4)
  AND NOT EXISTS (SELECT 1 FROM tickwork_operator_log AS l WHERE l.delivery = d.id AND l.at >= MIN(?1, ?4))
LIMIT 1000
