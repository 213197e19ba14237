-- Campaigns: what marketers and internal tools compose. The validated content (notification,
-- targets, data, options, variants) is one JSON document in the REST contract's own shape, so the
-- renderer and the scheduler read exactly what the API accepted; the columns beside it are what
-- queries filter, sort and lock on.
CREATE TABLE campaigns (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text        NOT NULL,
    status      text        NOT NULL DEFAULT 'draft'
                CHECK (status IN ('draft', 'scheduled', 'sending', 'sent', 'partially_failed', 'failed', 'cancelled')),
    -- Optimistic concurrency: every write bumps it; If-Match carries it.
    version     integer     NOT NULL DEFAULT 1,
    content     jsonb       NOT NULL,
    author      text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Listing is newest first with a (created_at, id) cursor, optionally by status.
CREATE INDEX campaigns_newest ON campaigns (created_at DESC, id DESC);
CREATE INDEX campaigns_status_newest ON campaigns (status, created_at DESC, id DESC);

-- Idempotent creates: a retried POST with the same Idempotency-Key returns the first answer.
-- The request's hash tells a true retry from a different request that reuses the key.
CREATE TABLE idempotency_keys (
    key             text        NOT NULL,
    scope           text        NOT NULL,
    request_sha256  text        NOT NULL,
    status          integer     NOT NULL,
    response        jsonb       NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (created_at);
