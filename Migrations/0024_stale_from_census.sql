-- Marking stale devices is the only reader of `devices_last_seen` left, once an hour, while every
-- registration and import row paid for it: 1.3 µs of PostgreSQL's 10–11 µs per imported device.
-- The census says whether any active device was last seen on or before the stale day (its rows
-- carry the UTC day): only then does the marking read `devices`, once over the table, which after
-- it holds none until the next day. A scan a day, not an index entry a registration.
DROP INDEX devices_last_seen;
