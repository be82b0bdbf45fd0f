
SELECT delivery, 0 AS set_aside FROM tickwork_handled WHERE delivery IN (SELECT value FROM json_each(?1))
UNION ALL
SELECT id, 1 FROM tickwork_deliveries WHERE id IN (SELECT value FROM json_each(?1)) AND state IN ('dismissed', 'cancelled')
