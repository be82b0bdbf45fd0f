
INSERT INTO tickwork_deploys (at, fingerprint, version_id, version_tag, version_at, declared, added, removed,
                              changed, first)
SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10
WHERE (SELECT fingerprint FROM tickwork_app WHERE id = 1) IS NOT ?2
