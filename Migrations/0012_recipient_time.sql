-- Recipient time: a run to devices goes out in waves, each device at the campaign's local time in
-- its own zone. `send_at` is its wave (it stays put when a retry moves `next_attempt_at`), for
-- the report; past `expires_at` (its wave plus the latest-delivery time) it is expired, not sent.
ALTER TABLE deliveries ADD COLUMN send_at timestamptz;
ALTER TABLE deliveries ADD COLUMN expires_at timestamptz;
CREATE INDEX deliveries_expiring ON deliveries (expires_at) WHERE expires_at IS NOT NULL AND status IN ('pending', 'retrying');

-- Recipient time on topics goes through time-zone topics ("tz.Asia.Tehran"): the zone whose topic
-- Herald last subscribed the device to, so a device that moves zone is moved between topics.
ALTER TABLE devices ADD COLUMN subscribed_time_zone text;
