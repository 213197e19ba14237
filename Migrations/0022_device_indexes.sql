-- Segment reach, the devices page's counts and the time zones of recipient time read the census
-- (0020) now, and a run streams its devices along the primary key: these indexes served none of
-- them, and each import paid for every one (dropping them and adding the census left an import's
-- cost in PostgreSQL about where it was: 20 µs a device). The GIN index of properties stays for
-- the rules the census leaves to `devices` (two properties), `devices_last_seen` for the hourly
-- marking of stale devices.
DROP INDEX devices_app_version;
DROP INDEX devices_country;
DROP INDEX devices_language;
DROP INDEX devices_platform;
DROP INDEX devices_language_version;
-- The devices page counts the inactive ones (invalid, stale) through this: few, whatever the size.
CREATE INDEX devices_inactive ON devices (status) WHERE status <> 'active';
