-- Uploaded images, served at /images/<sha256>.<ext>. The bytes were checked by content (PNG,
-- JPEG or GIF with a decodable header) and are at most 300 KB, so they live in the database
-- beside the campaigns: one backup, any number of instances.
CREATE TABLE images (
    sha256        text        PRIMARY KEY CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    content_type  text        NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/gif')),
    bytes         bytea       NOT NULL CHECK (octet_length(bytes) <= 307200),
    width         integer     NOT NULL CHECK (width > 0),
    height        integer     NOT NULL CHECK (height > 0),
    uploaded_by   text,
    created_at    timestamptz NOT NULL DEFAULT now()
);

-- Opens and conversions reported by apps or backends, per campaign and variant. The event id
-- is the client's, so a retried report is recorded once.
CREATE TABLE events (
    id           text        PRIMARY KEY CHECK (length(id) BETWEEN 1 AND 128),
    campaign_id  uuid        NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
    variant      text        NOT NULL CHECK (length(variant) BETWEEN 1 AND 16),
    type         text        NOT NULL CHECK (type IN ('open', 'conversion')),
    occurred_at  timestamptz NOT NULL DEFAULT now(),
    received_at  timestamptz NOT NULL DEFAULT now()
);

-- The report counts events per campaign, variant and type.
CREATE INDEX events_by_campaign ON events (campaign_id, variant, type);
