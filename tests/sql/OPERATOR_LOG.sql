
DELETE FROM tickwork_operator_log WHERE id IN (
    SELECT id FROM tickwork_operator_log AS l WHERE l.at < ?1
      AND (l.delivery IS NULL OR NOT EXISTS (SELECT 1 FROM tickwork_deliveries WHERE id = l.delivery))
    ORDER BY l.at LIMIT 1000)
