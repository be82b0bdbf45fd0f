seed_steps(name, k, seed) AS (
    SELECT DISTINCT name, 0, 0 FROM {names}
    UNION ALL
    SELECT name, k + 1, (seed * 65599 + unicode(substr(name, k + 1, 1))) % 1000003 FROM seed_steps
    WHERE k < length(name)),
  seeds(name, seed) AS (SELECT name, seed FROM seed_steps WHERE k = length(name))