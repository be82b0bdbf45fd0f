-- tickwork: a handled record is kept as long as a queue can redeliver its message (14 days at
-- most), whatever became of its event, then deleted by its age: the pass looks it up here.

CREATE INDEX tickwork_handled_by_at ON tickwork_handled (handled_at);
