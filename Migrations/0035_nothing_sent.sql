-- A run that reached nobody (every device capped, held by a quiet category or the control group,
-- or an audience with no one in it) ends `nothing_sent`, not `sent`, and so does its campaign: a
-- marketer reading "Sent" took it that people got the message (issue 37, "Outcomes tell the truth").
ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check
    CHECK (status IN ('draft', 'scheduled', 'sending', 'sent', 'partially_failed', 'failed', 'cancelled', 'paused', 'nothing_sent'));
ALTER TABLE runs DROP CONSTRAINT runs_status_check;
ALTER TABLE runs ADD CONSTRAINT runs_status_check
    CHECK (status IN ('sending', 'sent', 'partially_failed', 'failed', 'cancelled', 'nothing_sent'));
