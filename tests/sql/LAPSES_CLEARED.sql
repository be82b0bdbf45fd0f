
UPDATE tickwork_app SET lapse_clear = MAX(IFNULL(lapse_clear, ?1), ?1)
WHERE id = 1 AND MAX(CAST(IFNULL(lapse_clear, 0) - IFNULL(lease_reach, 0) + 1 AS INTEGER), 0) >= ?2
