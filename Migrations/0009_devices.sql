-- Audiences: the devices Herald knows (registered by the apps' backends or imported), saved
-- segments over them, and per-device sending.

-- One app install, by its FCM registration token. `status` is what sending may do with it:
-- `active` devices are sent to; `invalid` ones were refused by FCM (UNREGISTERED, or a token FCM
-- calls invalid) and are never sent to again until registered anew; `stale` ones have not been
-- seen for longer than the configured time (FCM drops tokens unused for 270 days).
CREATE TABLE devices (
    token           text        PRIMARY KEY CHECK (length(token) BETWEEN 1 AND 4096),
    platform        text        NOT NULL CHECK (platform IN ('android', 'ios', 'web')),
    app_id          text,
    app_version     text,
    -- The version's numeric parts with trailing zeros dropped ("5.2.0" → {5,2}): PostgreSQL
    -- compares integer arrays part by part, so `>=` orders versions as people do (5.10 > 5.9).
    app_version_key integer[],
    language        text,
    country         text,
    time_zone       text,
    properties      jsonb       NOT NULL DEFAULT '{}',
    status          text        NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'invalid', 'stale')),
    invalid_reason  text,
    last_seen_at    timestamptz NOT NULL DEFAULT now(),
    registered_at   timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
-- The segment filters and the devices page's counts.
CREATE INDEX devices_language ON devices (language) WHERE status = 'active';
-- "fa" matches every region of it: segments compare the primary subtag.
CREATE INDEX devices_language_primary ON devices (split_part(language, '-', 1)) WHERE status = 'active';
CREATE INDEX devices_country ON devices (country) WHERE status = 'active';
CREATE INDEX devices_platform ON devices (platform) WHERE status = 'active';
CREATE INDEX devices_app_version ON devices (app_version_key) WHERE status = 'active';
CREATE INDEX devices_last_seen ON devices (last_seen_at);
CREATE INDEX devices_properties ON devices USING gin (properties);

-- A saved, named filter over devices (`SegmentRule` in HeraldCore says what `rule` holds).
CREATE TABLE segments (
    id          uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name        text        NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 200),
    rule        jsonb       NOT NULL,
    created_by  text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- A run to devices sends one request per device: many of its requests may be in flight at once
-- (a crash repeats at most those, each to one device), unlike a topic run's single fan-out.
ALTER TABLE runs ADD COLUMN per_device boolean NOT NULL DEFAULT false;
-- The device a per-device request goes to, for token hygiene and counting devices in the report.
ALTER TABLE deliveries ADD COLUMN device_token text;
CREATE INDEX deliveries_device ON deliveries (device_token) WHERE device_token IS NOT NULL;
-- Opens and conversions may name the device, so rates are per recipient.
ALTER TABLE events ADD COLUMN device_token text;

-- A key of the `devices` scope may only register, update and forget devices (the apps' backends).
ALTER TABLE api_keys DROP CONSTRAINT api_keys_scope_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_scope_check CHECK (scope IN ('full', 'events', 'devices'));
