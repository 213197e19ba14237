-- Segment reach from counts, not from devices: counting a segment over `devices` read every
-- matching row (186 ms at a million devices, seconds at ten million), while the attributes a
-- segment names take few values together. `device_census` holds how many ACTIVE devices have each
-- combination of them (their last sighting as a UTC day), and `device_property_census` the same
-- per property name and value. Reach sums the rows that match the rule's condition, compiled
-- against these columns (they bear the devices' names): tens of thousands of rows at any size.
--
-- The counts are kept exact by statement-level triggers on `devices` with transition tables: each
-- statement appends the active devices it wrote (+1) and replaced or deleted (-1) to
-- `device_census_changes` as they are (no grouping, no index, no lock: an import batch of 5,000
-- devices costs one plain insert, and concurrent writers never wait for one another), and
-- `device_census_fold()` groups the changes into the counts in one pass: at the end of an import
-- and at each scheduler poll. A reach sums the counts and the changes not yet folded in one
-- statement, so it sees each transaction whole or not at all. Upserting the counts in each
-- statement instead made an import two to three times slower (its devices' combinations rarely
-- repeat within a batch, so nearly every device updated a count row); grouping in each statement
-- cost a fifth of an import.

-- The columns a segment can name, as `devices` has them; `last_seen_on` is the UTC day of
-- `last_seen_at` (segments count "last seen within N days" in whole UTC days, see SegmentRule).
CREATE TABLE device_census (
    platform         text      NOT NULL,
    app_id           text,
    app_version      text,
    app_version_key  integer[],
    language         text,
    language_primary text,
    country          text,
    time_zone        text,
    last_seen_on     date      NOT NULL,
    n                bigint    NOT NULL,
    -- The key leaves out what follows from it: `language_primary` from `language`, and
    -- `app_version_key` from `app_version` (Swift computes it, the same for the same text).
    CONSTRAINT device_census_key UNIQUE NULLS NOT DISTINCT (platform, app_id, app_version, language, country, time_zone, last_seen_on)
);
-- Most writes add to rows that exist: room on each page lets PostgreSQL update them in place
-- (HOT, no new index entry), as `n` is in no index.
ALTER TABLE device_census SET (fillfactor = 50);

-- The same per property (`name`, `value`) a device has, without the day: a segment with one
-- property condition among its conjuncts and no "last seen" is counted here (DeviceCensus.swift
-- says which rules are). With the day, a batch of devices with a property each wrote as many rows
-- as devices: the fill went 3.4 times slower; without it, their combinations are few and repeat.
CREATE TABLE device_property_census (
    name             text      NOT NULL,
    value            text      NOT NULL,
    platform         text      NOT NULL,
    app_id           text,
    app_version      text,
    app_version_key  integer[],
    language         text,
    language_primary text,
    country          text,
    time_zone        text,
    n                bigint    NOT NULL,
    CONSTRAINT device_property_census_key UNIQUE NULLS NOT DISTINCT (name, value, platform, app_id, app_version, language, country, time_zone)
);
ALTER TABLE device_property_census SET (fillfactor = 50);

-- Active devices written (n = 1) or replaced or deleted (n = -1) since the last fold, with what
-- the counts read of them.
CREATE TABLE device_census_changes (
    platform         text        NOT NULL,
    app_id           text,
    app_version      text,
    app_version_key  integer[],
    language         text,
    language_primary text,
    country          text,
    time_zone        text,
    last_seen_at     timestamptz NOT NULL,
    properties       jsonb       NOT NULL,
    n                smallint    NOT NULL
);

CREATE FUNCTION device_census_count() RETURNS trigger LANGUAGE plpgsql AS $function$
DECLARE
    -- Transition tables exist only for the operations that have them.
    moved constant text := CASE TG_OP
        WHEN 'INSERT' THEN 'SELECT *, 1 AS sign FROM new_devices'
        WHEN 'DELETE' THEN 'SELECT *, -1 AS sign FROM old_devices'
        ELSE 'SELECT *, 1 AS sign FROM new_devices UNION ALL SELECT *, -1 AS sign FROM old_devices' END;
BEGIN
    EXECUTE format($sql$
        INSERT INTO device_census_changes
        SELECT platform, app_id, app_version, app_version_key, language, language_primary, country, time_zone, last_seen_at, properties, sign
        FROM (%1$s) AS moved WHERE status = 'active'
        $sql$, moved);
    RETURN NULL;
END $function$;

-- Folds the changes committed so far into the counts, and deletes the count rows that reach 0;
-- returns how many changes it folded. One folder at a time (a transaction-scoped advisory lock,
-- tried and never waited for: ASCII "HeraldCs"); another finds it taken and returns 0. Its
-- grouping of a million-device import's changes fits in memory with `work_mem` at 256 MB (with
-- the default it sorted on disk, three times slower).
CREATE FUNCTION device_census_fold() RETURNS bigint LANGUAGE plpgsql SET work_mem = '256MB' AS $function$
DECLARE
    propertyDims constant text := 'platform, app_id, app_version, app_version_key, language, language_primary, country, time_zone';
    dims constant text := propertyDims || ', last_seen_on';
    folded bigint;
    whole boolean;
    -- The rows the fold emptied, deleted after it (their ctid holds: only the folder writes them).
    plain_emptied tid[];
    property_emptied tid[];
BEGIN
    -- Each scheduler asks at every poll: with nothing to fold, it takes no lock and empties nothing
    -- (a TRUNCATE of an empty table still gives it new files and rewrites its catalog rows).
    IF NOT pg_try_advisory_xact_lock(5216694956355535731) OR NOT EXISTS (SELECT 1 FROM device_census_changes) THEN
        RETURN 0;
    END IF;
    -- With no writer or reader about (the end of an import, as a rule), the changes are read and
    -- the table emptied at once: no dead rows to vacuum, no deletion logged row by row. Else
    -- the changes committed so far are deleted as they are read.
    BEGIN
        LOCK TABLE device_census_changes IN ACCESS EXCLUSIVE MODE NOWAIT;
        whole := true;
    EXCEPTION WHEN lock_not_available THEN
        whole := false;
    END;
    EXECUTE format($sql$
        WITH pending AS (%3$s),
        plain_delta AS (
            SELECT %2$s, (last_seen_at AT TIME ZONE 'UTC')::date AS last_seen_on, sum(n)::bigint AS n FROM pending
            GROUP BY %2$s, (last_seen_at AT TIME ZONE 'UTC')::date HAVING sum(n) <> 0),
        property_delta AS (
            SELECT p.key AS name, p.value #>> '{}' AS value, %2$s, sum(n)::bigint AS n
            FROM pending, jsonb_each(pending.properties) AS p WHERE jsonb_typeof(p.value) = 'string'
            GROUP BY p.key, p.value #>> '{}', %2$s HAVING sum(n) <> 0),
        plain AS (
            INSERT INTO device_census AS c (%1$s, n) SELECT %1$s, n FROM plain_delta
            ON CONFLICT ON CONSTRAINT device_census_key DO UPDATE SET n = c.n + excluded.n
            RETURNING c.ctid, c.n),
        property AS (
            INSERT INTO device_property_census AS c (name, value, %2$s, n) SELECT name, value, %2$s, n FROM property_delta
            ON CONFLICT ON CONSTRAINT device_property_census_key DO UPDATE SET n = c.n + excluded.n
            RETURNING c.ctid, c.n)
        SELECT (SELECT count(*) FROM pending), (SELECT array_agg(ctid) FROM plain WHERE n = 0), (SELECT array_agg(ctid) FROM property WHERE n = 0)
        $sql$, dims, propertyDims,
        CASE WHEN whole THEN 'SELECT * FROM device_census_changes' ELSE 'DELETE FROM device_census_changes RETURNING *' END)
        INTO folded, plain_emptied, property_emptied;
    IF whole THEN
        TRUNCATE device_census_changes;
    END IF;
    IF plain_emptied IS NOT NULL THEN
        DELETE FROM device_census WHERE ctid = ANY(plain_emptied);
    END IF;
    IF property_emptied IS NOT NULL THEN
        DELETE FROM device_property_census WHERE ctid = ANY(property_emptied);
    END IF;
    RETURN folded;
END $function$;

CREATE TRIGGER device_census_insert AFTER INSERT ON devices REFERENCING NEW TABLE AS new_devices
    FOR EACH STATEMENT EXECUTE FUNCTION device_census_count();
CREATE TRIGGER device_census_update AFTER UPDATE ON devices REFERENCING OLD TABLE AS old_devices NEW TABLE AS new_devices
    FOR EACH STATEMENT EXECUTE FUNCTION device_census_count();
CREATE TRIGGER device_census_delete AFTER DELETE ON devices REFERENCING OLD TABLE AS old_devices
    FOR EACH STATEMENT EXECUTE FUNCTION device_census_count();

-- Emptying the registry empties its census.
CREATE FUNCTION device_census_clear() RETURNS trigger LANGUAGE plpgsql AS $function$
BEGIN
    DELETE FROM device_census;
    DELETE FROM device_property_census;
    DELETE FROM device_census_changes;
    RETURN NULL;
END $function$;
CREATE TRIGGER device_census_truncate AFTER TRUNCATE ON devices FOR EACH STATEMENT EXECUTE FUNCTION device_census_clear();

-- The census of the devices stored before (the triggers above already lock out writers until
-- this migration commits, so nothing is counted twice or missed).
INSERT INTO device_census (platform, app_id, app_version, app_version_key, language, language_primary, country, time_zone, last_seen_on, n)
SELECT platform, app_id, app_version, app_version_key, language, language_primary, country, time_zone,
       (last_seen_at AT TIME ZONE 'UTC')::date, count(*)
FROM devices WHERE status = 'active'
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9;
INSERT INTO device_property_census (name, value, platform, app_id, app_version, app_version_key, language, language_primary, country,
                                    time_zone, n)
SELECT p.key, p.value #>> '{}', platform, app_id, app_version, app_version_key, language, language_primary, country, time_zone, count(*)
FROM devices, jsonb_each(devices.properties) AS p
WHERE status = 'active' AND jsonb_typeof(p.value) = 'string'
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10;
