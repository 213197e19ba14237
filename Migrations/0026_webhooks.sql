-- Webhooks: endpoints a company registers to hear of campaigns, approvals, runs, devices and
-- imports, and the outbox of their deliveries. An event is written here in the transaction of the
-- change it reports (so it exists exactly when the change committed); a dispatcher thread posts it
-- later, never a request or a send worker.
CREATE TABLE webhooks (
    id                uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    url               text        NOT NULL,
    events            text[]      NOT NULL,
    description       text        NOT NULL DEFAULT '',
    -- The HMAC key of the signatures; shown once, when the endpoint is created.
    secret            text        NOT NULL,
    created_by        text        NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    -- One dispatcher at a time posts to an endpoint, so that its events arrive in order.
    lease_owner       text,
    lease_expires_at  timestamptz
);

CREATE TABLE webhook_deliveries (
    id               bigserial   PRIMARY KEY,
    webhook_id       uuid        NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id         uuid        NOT NULL,
    event_type       text        NOT NULL,
    -- The exact bytes posted (and signed), so a retry or a redelivery posts the same.
    body             text        NOT NULL,
    status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts         integer     NOT NULL DEFAULT 0,
    next_attempt_at  timestamptz NOT NULL DEFAULT now(),
    last_attempt_at  timestamptz,
    -- The receiver's last answer: its status code, or why there was none.
    response_status  integer,
    last_error       text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    delivered_at     timestamptz
);
-- The head of each endpoint's queue, and an endpoint's log newest first.
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_log ON webhook_deliveries (webhook_id, id DESC);
CREATE INDEX webhook_deliveries_delivered ON webhook_deliveries (delivered_at) WHERE status = 'delivered';
