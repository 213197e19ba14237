-- No one gets too many (frequency caps, quiet categories, the global control group).
--
-- The project's contact policy: one row. `caps` is FrequencyCaps' JSON; the control group is a
-- share of devices (hundredths of a percent) picked by a hash salted per project, so that it
-- stays the same devices until someone changes the salt on purpose.
CREATE TABLE contact_policy (
    id                   boolean     PRIMARY KEY DEFAULT true CHECK (id),
    caps                 jsonb       NOT NULL DEFAULT '{"marketing": {}, "categories": {}}',
    control_basis_points integer     NOT NULL DEFAULT 0 CHECK (control_basis_points BETWEEN 0 AND 5000),
    control_salt         text        NOT NULL DEFAULT md5(gen_random_uuid()::text),
    -- When the control group last changed (its share or its salt): comparisons start there.
    control_since        timestamptz NOT NULL DEFAULT now(),
    version              integer     NOT NULL DEFAULT 1,
    updated_at           timestamptz NOT NULL DEFAULT now()
);
INSERT INTO contact_policy DEFAULT VALUES;

-- The marketing messages each device got within the longest capped window: one row a device,
-- its sends as parallel arrays in time order (when, the campaign's category, the run). A claim
-- counts and appends in one INSERT … ON CONFLICT per batch, which holds each device's row while
-- it decides: instances sending to one device at once take turns, so no cap is passed. The run
-- makes a retried claim of the same device by the same run (a crash, a retry) count once.
-- Keyed by a 64-bit hash of the token (hashtextextended(token, 0)), not the token: FCM tokens are
-- about 160 bytes, and an index of them grows past memory at ten million devices, where each
-- probe then reads the disk. Two tokens that hash alike (about one pair in 10^5 registries of ten
-- million) would share their count: they would be capped together, never sent past a cap.
-- Narrow, with room on its pages, so that an append is a HOT update that touches no index.
CREATE TABLE device_touches (
    key      bigint        PRIMARY KEY,
    at       timestamptz[] NOT NULL,
    category text[]        NOT NULL,
    run      uuid[]        NOT NULL
) WITH (fillfactor = 70);

-- The categories a device's owner switched off ("promotions"): it gets no campaign of them.
ALTER TABLE devices ADD COLUMN quiet_categories text[] NOT NULL DEFAULT '{}';

-- What a run froze of the control group when it started (none for a transactional campaign).
ALTER TABLE runs ADD COLUMN control_basis_points integer NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN control_salt text;

-- A request a frequency cap stopped: never sent by its run, neither sent nor failed.
ALTER TABLE deliveries DROP CONSTRAINT deliveries_status_check;
DO $$
DECLARE partition regclass;
BEGIN
    FOR partition IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'deliveries'::regclass LOOP
        EXECUTE format('ALTER TABLE %s DROP CONSTRAINT IF EXISTS deliveries_status_check', partition);
    END LOOP;
END $$;
ALTER TABLE deliveries ADD CONSTRAINT deliveries_status_check
    CHECK (status IN ('pending', 'retrying', 'sent', 'failed', 'cancelled', 'expired', 'capped'));

-- The app's own events (an app open, a purchase) name a device and no campaign: the control
-- group's comparison counts them per device. A campaign's events keep their campaign and variant.
ALTER TABLE events ALTER COLUMN campaign_id DROP NOT NULL, ALTER COLUMN variant DROP NOT NULL;
ALTER TABLE events ADD CONSTRAINT events_campaign_or_device
    CHECK ((campaign_id IS NULL) = (variant IS NULL) AND (campaign_id IS NOT NULL OR device_token IS NOT NULL));
-- The comparison reads a period's events by time.
CREATE INDEX events_occurred ON events (occurred_at) WHERE device_token IS NOT NULL;
