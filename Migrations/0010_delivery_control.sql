-- Delivery control: pausing and resuming a campaign, and (below) what the other controls keep.

-- A paused campaign starts no run and has none of its deliveries claimed; `paused_from` is what
-- it was (scheduled or sending), which resuming returns it to.
ALTER TABLE campaigns DROP CONSTRAINT campaigns_status_check;
ALTER TABLE campaigns ADD CONSTRAINT campaigns_status_check
    CHECK (status IN ('draft', 'scheduled', 'sending', 'sent', 'partially_failed', 'failed', 'cancelled', 'paused'));
ALTER TABLE campaigns ADD COLUMN paused_from text CHECK (paused_from IN ('scheduled', 'sending'));

-- A delivery not sent by its campaign's latest-delivery time is dropped as `expired`.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
    CHECK (status IN ('pending', 'retrying', 'sent', 'failed', 'cancelled', 'expired'));
