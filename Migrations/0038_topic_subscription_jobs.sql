-- Subscribing a segment's devices to a topic (or unsubscribing them) is background work: a
-- segment of a million devices takes six minutes at FCM's 3,000 a second, far past any HTTP
-- request. Any instance's "topic-subscriptions" service claims a job with a lease and works
-- through the segment in token order, a batch at a time; `after_token` is how far it got and the
-- counts are of the devices done so far, written together, so an instance that dies leaves the
-- job to the next one from there once `lease_until` has passed. `reach` is the segment's count
-- when the job was made (the progress shown is `devices` of it). The segment is read afresh at
-- each batch: one deleted meanwhile fails the job.
CREATE TABLE topic_subscription_jobs (
    id           uuid        PRIMARY KEY DEFAULT gen_random_uuid(),
    topic        text        NOT NULL,
    unsubscribe  boolean     NOT NULL,
    segment_id   uuid        NOT NULL,
    status       text        NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'done', 'failed')),
    reach        bigint      NOT NULL,
    after_token  text,
    devices      bigint      NOT NULL DEFAULT 0,
    changed      bigint      NOT NULL DEFAULT 0,
    failed       bigint      NOT NULL DEFAULT 0,
    throttled    bigint      NOT NULL DEFAULT 0,
    skipped_fids bigint      NOT NULL DEFAULT 0,
    calls        bigint      NOT NULL DEFAULT 0,
    -- The first 1,000 devices FCM refused: [{"token", "reason"}].
    failures     jsonb       NOT NULL DEFAULT '[]',
    error        text,
    lease_owner  text,
    lease_until  timestamptz,
    created_by   text        NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz
);

CREATE INDEX topic_subscription_jobs_open ON topic_subscription_jobs (created_at) WHERE status IN ('queued', 'running');
