-- Runs to devices without recipient time or a spread are streamed: no row per device. A worker's
-- claim reads the next devices of the audience after the run's position (`runs.plan_after`, in
-- token order), leases them as one batch row and moves the position on, all in one short
-- transaction; it renders each device's message at send time from the version the run froze
-- (`runs.content`), and records the round in one statement per table: counts per variant and
-- outcome, a row per failed device, a batch of the devices to try again. A run's size never
-- delays its first message, and nothing it stores grows with the devices it reached but failures.
ALTER TABLE runs ADD COLUMN streamed boolean NOT NULL DEFAULT false;
-- Every claim looks for a streamed run with devices left to read: the few, not every run ever.
CREATE INDEX runs_streaming ON runs (occurrence, id) WHERE streamed AND planning;

-- A leased or waiting batch of a streamed run: a range of the audience in token order
-- (after_token, last_token], or the devices to try again (`tokens`, with their `variants`).
-- A crashed worker's batch is taken over when its lease expires, as a delivery's is.
CREATE TABLE device_batches (
    id               bigserial   PRIMARY KEY,
    run_id           uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    campaign_id      uuid        NOT NULL,
    after_token      text,
    last_token       text,
    tokens           text[],
    variants         text[],
    devices          integer     NOT NULL,
    status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'cancelled', 'expired')),
    attempts         integer     NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    lease_owner      text,
    lease_expires_at timestamptz,
    CHECK ((tokens IS NULL) = (last_token IS NOT NULL))
);
CREATE INDEX device_batches_waiting ON device_batches (next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX device_batches_run ON device_batches (run_id) WHERE status = 'pending';
CREATE INDEX device_batches_campaign ON device_batches (campaign_id) WHERE status = 'pending';

-- What a run's rounds did, per variant, outcome (planned, sent, failed, retrying, cancelled,
-- expired) and hour; `shard` spreads concurrent workers over rows so that no two wait for one
-- row's lock. Reports and lists add these up: a handful of rows per run at any size.
CREATE TABLE run_counts (
    run_id      uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    variant_key text        NOT NULL,
    outcome     text        NOT NULL,
    hour        timestamptz NOT NULL,
    shard       smallint    NOT NULL,
    n           bigint      NOT NULL,
    PRIMARY KEY (run_id, variant_key, outcome, hour, shard)
);

-- The devices a streamed run could not reach, with FCM's reason: what the report lists and the
-- deliveries API pages through (ids from the deliveries' sequence, so one cursor serves both).
CREATE TABLE delivery_failures (
    id            bigint      PRIMARY KEY DEFAULT nextval('deliveries_id_seq'),
    run_id        uuid        NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    campaign_id   uuid        NOT NULL,
    device_token  text        NOT NULL,
    variant_key   text        NOT NULL,
    attempts      integer     NOT NULL,
    error_code    text,
    error_message text,
    failed_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX delivery_failures_campaign ON delivery_failures (campaign_id, id);
CREATE INDEX delivery_failures_run ON delivery_failures (run_id);
-- Forgetting a device (an erasure request) finds its failures by token.
CREATE INDEX delivery_failures_device ON delivery_failures (device_token);
