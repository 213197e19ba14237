-- Devices by Firebase installation ID (FID) beside registration tokens: Google has deprecated
-- tokens, and an app that opts in swaps its device's token for its FID at its next launch.

-- `token` stays the identifier FCM addresses the device by; `kind` says which target names it
-- (`token`, or `fid` for an installation ID). One column keeps every keyset, index, history row
-- (`deliveries.device_token`, `delivery_failures.device_token`, `events.device_token`) and
-- hygiene statement working for both kinds.
ALTER TABLE devices ADD COLUMN kind text NOT NULL DEFAULT 'token' CHECK (kind IN ('token', 'fid'));

-- A device's A/B bucket is a hash of its identifier. A device moved from its token to its FID
-- keeps the token here, and its bucket is hashed from it, so the move never changes the variant
-- it gets of any campaign. NULL: the bucket is hashed from `token`.
ALTER TABLE devices ADD COLUMN bucket_key text CHECK (length(bucket_key) BETWEEN 1 AND 4096);

-- A move retried after a lost answer finds the device by the token it moved from.
CREATE INDEX devices_bucket_key ON devices (bucket_key) WHERE bucket_key IS NOT NULL;

-- A move re-addresses the device's history: its opens and conversions are found by device.
-- (`delivery_failures` has its index by device; `deliveries` keeps none on purpose, see 0013:
-- a move reads through the per-device rows of planned runs, which only spread and
-- recipient-time runs write, and which retention drops.)
CREATE INDEX events_device ON events (device_token) WHERE device_token IS NOT NULL;
