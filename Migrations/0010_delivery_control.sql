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

-- Approvals (HERALD_APPROVALS=on): where the campaign is in its approval, the decision's comment
-- and who made it ("kind:name"), and the version approved last with its content, which the
-- approver's diff is made against.
ALTER TABLE campaigns ADD COLUMN approval text NOT NULL DEFAULT 'none'
    CHECK (approval IN ('none', 'awaiting_approval', 'approved', 'rejected'));
ALTER TABLE campaigns ADD COLUMN approval_comment text;
ALTER TABLE campaigns ADD COLUMN approval_decided_by text;
ALTER TABLE campaigns ADD COLUMN approved_version integer;
ALTER TABLE campaigns ADD COLUMN approved_content jsonb;

-- The project-wide sending quota, one token bucket per FCM project shared by every instance:
-- workers take tokens (on the database's clock) before they send, and a 429 from FCM sets
-- `not_before`, which holds every instance, not only the one that got it. `taken` and
-- `slowdowns` count since the row was made, for the metrics.
CREATE TABLE send_buckets (
    project      text             PRIMARY KEY,
    tokens       double precision NOT NULL,
    refilled_at  timestamptz      NOT NULL DEFAULT clock_timestamp(),
    not_before   timestamptz      NOT NULL DEFAULT 'epoch',
    taken        bigint           NOT NULL DEFAULT 0,
    slowdowns    bigint           NOT NULL DEFAULT 0
);

-- A run's delivery controls, set when it starts: after `expires_at` (its campaign's latest-delivery
-- time) nothing more of it is sent and what is left is expired; it sends only between
-- `window_opens_at` and `window_closes_at` (its campaign's sending hours, the current or next
-- stretch; the scheduler moves them on to the next stretch when one closes).
ALTER TABLE runs ADD COLUMN expires_at timestamptz;
ALTER TABLE runs ADD COLUMN window_opens_at timestamptz;
ALTER TABLE runs ADD COLUMN window_closes_at timestamptz;

-- The automatic winner's decision at an A/B test's deadline, once per campaign: the variant
-- sent to the rest (null: nothing, the fallback), whether it won, and the figures it was
-- decided on, for the report.
CREATE TABLE winner_decisions (
    campaign_id  uuid        PRIMARY KEY REFERENCES campaigns (id) ON DELETE CASCADE,
    decided_at   timestamptz NOT NULL DEFAULT now(),
    variant      text,
    decision     jsonb       NOT NULL
);
