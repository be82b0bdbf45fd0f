
DELETE FROM tickwork_deploys WHERE id IN (
    SELECT id FROM tickwork_deploys INDEXED BY tickwork_deploys_by_time
    WHERE at < ?1 AND id < (SELECT MAX(id) FROM tickwork_deploys) ORDER BY at LIMIT 1000)
