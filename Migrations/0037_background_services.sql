-- Chores that must run once per deployment (retention, the census fold, stale marking, the Data
-- API poll…) run on the instance that holds this lease. One row a lease; taken with a single
-- upsert on the database's clock, so it works behind a pooler in transaction mode (no session
-- state, unlike an advisory lock). An instance that dies stops renewing it, and another takes
-- it once `expires_at` has passed.
CREATE TABLE leader_leases (
    name        text        PRIMARY KEY,
    owner       text        NOT NULL,
    acquired_at timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL
);

-- Each instance's background services as it last reported them (`herald doctor` reads this:
-- it runs in a process of its own). Written every few seconds by each instance; rows unseen for
-- a day are dropped by the leader.
CREATE TABLE background_instances (
    owner      text        PRIMARY KEY,
    started_at timestamptz NOT NULL,
    seen_at    timestamptz NOT NULL,
    stopped_at timestamptz,
    services   jsonb       NOT NULL
);
