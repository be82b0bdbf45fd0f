
UPDATE tickwork_runs SET lease_until = MAX(lease_until, ?2) WHERE id = ?1 AND lease_until IS NOT NULL
