-- Assigning time-zone topics (POST /api/v1/time-zone-topics) is background work too, a job of the
-- same table as a segment's subscription: a registry of a million devices is six minutes of
-- FCM's 3,000 subscription changes a second, far past any HTTP request. A time-zone job has no
-- topic and no segment: it moves every active device whose zone differs from the one last
-- assigned (`devices.subscribed_time_zone`) out of its old zone's topic and into its new one's, in
-- token order from `after_token`; `unsubscribed` and `zones` (the zones whose topics gained
-- devices) are its own counts. At most one is queued or running at a time.
-- (An instance of the release before may claim a time-zone job during an upgrade and fail to read
-- it: the job then waits for that claim's lease, a minute, and is taken by this release.)
ALTER TABLE topic_subscription_jobs ADD COLUMN kind text NOT NULL DEFAULT 'segment' CHECK (kind IN ('segment', 'time_zones'));
ALTER TABLE topic_subscription_jobs ALTER COLUMN topic DROP NOT NULL, ALTER COLUMN segment_id DROP NOT NULL;
ALTER TABLE topic_subscription_jobs ADD CONSTRAINT topic_subscription_jobs_kind_fields
    CHECK ((kind = 'segment') = (topic IS NOT NULL AND segment_id IS NOT NULL));
ALTER TABLE topic_subscription_jobs ADD COLUMN unsubscribed bigint NOT NULL DEFAULT 0;
ALTER TABLE topic_subscription_jobs ADD COLUMN zones text[] NOT NULL DEFAULT '{}';
CREATE UNIQUE INDEX topic_subscription_jobs_one_time_zone_job ON topic_subscription_jobs (kind)
    WHERE kind = 'time_zones' AND status IN ('queued', 'running');
