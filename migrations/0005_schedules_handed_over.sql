-- tickwork: schedules an app hands over at run time, one per item, kept beside the declared ones
-- (their names are ids `action@digest`, which no declared name can be) and ticked the same way.

ALTER TABLE tickwork_schedules ADD COLUMN action TEXT;      -- the action it calls; NULL if declared
ALTER TABLE tickwork_schedules ADD COLUMN timing TEXT;      -- its timing, as JSON
ALTER TABLE tickwork_schedules ADD COLUMN input TEXT;       -- the input handed over, as JSON
ALTER TABLE tickwork_schedules ADD COLUMN expires_at INTEGER;  -- no call at or after this
ALTER TABLE tickwork_schedules ADD COLUMN ended TEXT;       -- why it ended: cancelled, expired, action_gone, done

-- What a deploy that changed the declared set looks at: the declared rows still declared, never
-- the handed-over ones, however many.
CREATE INDEX tickwork_schedules_declared ON tickwork_schedules (name)
WHERE action IS NULL AND removed_at IS NULL;
