
SELECT * FROM tickwork_deploys INDEXED BY tickwork_deploys_by_time WHERE at <= ?2 AND at >= (
    SELECT IFNULL(MAX(at), ?1) FROM tickwork_deploys INDEXED BY tickwork_deploys_by_time WHERE at <= ?1)
ORDER BY at LIMIT 200
