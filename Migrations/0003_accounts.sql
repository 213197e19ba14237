-- Accounts and access: users with a role, browser sessions, API keys, failed sign-ins and the
-- audit log. No secret is stored as it was given: passwords as a slow KDF string, session ids and
-- API keys as their SHA-256 (both are 256-bit random, so a fast hash cannot be brute-forced).
CREATE TABLE users (
    id             uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    email          text        NOT NULL,
    role           text        NOT NULL CHECK (role IN ('viewer', 'editor', 'publisher', 'admin')),
    -- "pbkdf2-sha256$<iterations>$<salt base64url>$<hash base64url>"
    password_hash  text        NOT NULL,
    disabled       boolean     NOT NULL DEFAULT false,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

-- A browser session: the cookie holds a random id, the row only its SHA-256.
CREATE TABLE sessions (
    id_sha256     text        PRIMARY KEY,
    user_id       uuid        NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    csrf_token    text        NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- Sliding idle expiry is measured from here; refreshed at most once a minute.
    last_seen_at  timestamptz NOT NULL DEFAULT now(),
    -- Absolute expiry, however active the session.
    expires_at    timestamptz NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expiry ON sessions (expires_at);

-- API keys for REST. `scope` full acts with the key's role; `events` may only post events.
CREATE TABLE api_keys (
    id            uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    name          text        NOT NULL,
    -- The first characters of the key, shown in lists so an operator can tell keys apart.
    prefix        text        NOT NULL,
    key_sha256    text        NOT NULL UNIQUE,
    role          text        NOT NULL CHECK (role IN ('viewer', 'editor', 'publisher', 'admin')),
    scope         text        NOT NULL DEFAULT 'full' CHECK (scope IN ('full', 'events')),
    created_by    text,
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- Refreshed at most once a minute, so a busy key does not write on every request.
    last_used_at  timestamptz,
    revoked_at    timestamptz
);

-- Failed sign-ins, so every instance sees the same count when it rate-limits.
CREATE TABLE sign_in_failures (
    id         bigserial   PRIMARY KEY,
    email      text        NOT NULL,
    address    text        NOT NULL,
    failed_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_failures_email ON sign_in_failures (email, failed_at);
CREATE INDEX sign_in_failures_address ON sign_in_failures (address, failed_at);

-- Who did what to which object, when, from where. Append-only.
CREATE TABLE audit_log (
    id           bigserial   PRIMARY KEY,
    at           timestamptz NOT NULL DEFAULT now(),
    user_id      uuid,
    api_key_id   uuid,
    actor        text        NOT NULL,
    action       text        NOT NULL,
    object_type  text,
    object_id    text,
    address      text        NOT NULL DEFAULT '',
    details      jsonb       NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_log_newest ON audit_log (id DESC);
