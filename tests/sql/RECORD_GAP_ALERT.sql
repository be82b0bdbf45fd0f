
INSERT INTO tickwork_events (id, name, body, run, emitted_at, trace)
SELECT ?4, 'tickwork.ticks_stopped',
       json_object('from', strftime('%Y-%m-%dT%H:%M:%fZ', g.from_tick / 1000.0, 'unixepoch'), 'to', strftime('%Y-%m-%dT%H:%M:%fZ', g.to_tick / 1000.0, 'unixepoch'),
                   'gap_s', CAST((g.to_tick - g.from_tick) / 1000 AS INTEGER)),
       NULL, ?3, NULL
FROM tickwork_gaps AS g WHERE g.to_tick = ?1 AND g.alert = ?4
ON CONFLICT (id) DO NOTHING
