d.id IN (
    SELECT id FROM tickwork_deliveries WHERE state IN ('pending', 'outcome_unknown')
    UNION ALL SELECT id FROM tickwork_deliveries WHERE state IN ('failed', 'outcome_unknown') AND state = 'failed')