d.*, e.name AS event_name, substr(e.body, 1, 200) AS body, length(e.body) AS body_length,
       e.run AS run, e.emitted_at AS emitted_at,
       (SELECT r.schedule FROM tickwork_runs AS r WHERE r.id = e.run) AS schedule