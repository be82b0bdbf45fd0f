
UPDATE tickwork_schedules SET lease_until = MAX(IFNULL(lease_until, ?3), ?3)
WHERE name = ?1 AND lease_run = ?2
