-- Scheduling and delivery: when a campaign is next due, each run of it, and each v1 request of
-- each run (the outbox). Workers in any number of processes claim deliveries with
-- SELECT … FOR UPDATE SKIP LOCKED and a lease, so a crashed worker's deliveries are taken over
-- when its lease expires.

-- When the scheduler should start the campaign's next run; null when nothing is due.
ALTER TABLE campaigns ADD COLUMN next_run_at timestamptz;
CREATE INDEX campaigns_due ON campaigns (next_run_at) WHERE status = 'scheduled';

-- One execution of a campaign. A recurring campaign has one per occurrence, and the unique
-- (campaign_id, occurrence) makes sending an occurrence twice impossible.
CREATE TABLE runs (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    campaign_id  uuid        NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    occurrence   timestamptz NOT NULL,
    status       text        NOT NULL DEFAULT 'sending'
                 CHECK (status IN ('sending', 'sent', 'partially_failed', 'failed', 'cancelled')),
    planned      integer     NOT NULL,
    warnings     jsonb       NOT NULL DEFAULT '[]',
    started_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    UNIQUE (campaign_id, occurrence)
);

-- One v1 send request. `body` is the exact `message` JSON sent, kept as text so its bytes are
-- what FCM received (jsonb would reorder them).
CREATE TABLE deliveries (
    id                bigserial   PRIMARY KEY,
    run_id            uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    campaign_id       uuid        NOT NULL,
    variant_key       text        NOT NULL,
    target            jsonb       NOT NULL,
    body              text        NOT NULL,
    status            text        NOT NULL DEFAULT 'pending'
                      CHECK (status IN ('pending', 'retrying', 'sent', 'failed', 'cancelled')),
    attempts          integer     NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz NOT NULL DEFAULT now(),
    lease_owner       text,
    lease_expires_at  timestamptz,
    message_name      text,
    error_code        text,
    error_message     text,
    sent_at           timestamptz,
    -- The engine (host:pid:tag) that recorded the final outcome: shows how instances shared the work.
    sent_by           text,
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_ready ON deliveries (next_attempt_at, id) WHERE status IN ('pending', 'retrying');
CREATE INDEX deliveries_run ON deliveries (run_id, status);
CREATE INDEX deliveries_campaign ON deliveries (campaign_id, id);

-- Wake every scheduler at once when a campaign's due time is set, instead of polling fast.
CREATE FUNCTION herald_notify_schedule() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('herald_schedule', NEW.id::text);
    RETURN NULL;
END
$$;
CREATE TRIGGER campaigns_schedule_changed
    AFTER INSERT OR UPDATE OF next_run_at, status ON campaigns
    FOR EACH ROW WHEN (NEW.status = 'scheduled' AND NEW.next_run_at IS NOT NULL)
    EXECUTE FUNCTION herald_notify_schedule();
