-- Runs to devices are planned while they send: the run starts with its first chunk of devices,
-- and the schedulers plan the rest a chunk at a time, each chunk its own short transaction, in
-- token order from where the last one stopped. A crash resumes at the persisted position, and a
-- chunk and the position move together, so no device is planned twice or skipped.
-- `content` and `audience` are the campaign version and the device audience the run froze when
-- it started (a segment edited or deleted later changes nothing of a run under way).
ALTER TABLE runs ADD COLUMN content jsonb;
ALTER TABLE runs ADD COLUMN audience jsonb;
-- The last device token planned (NULL: none yet), and whether devices remain to be planned.
ALTER TABLE runs ADD COLUMN plan_after text;
ALTER TABLE runs ADD COLUMN planning boolean NOT NULL DEFAULT false;
-- A spread's seconds between requests, and the devices whose message was over FCM's limit.
ALTER TABLE runs ADD COLUMN spacing float8;
ALTER TABLE runs ADD COLUMN unsendable integer NOT NULL DEFAULT 0;
CREATE INDEX runs_planning ON runs (occurrence) WHERE planning;
