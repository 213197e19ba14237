-- The census fold (0020) took a third of an import's PostgreSQL time: it expanded every change's
-- properties (`jsonb_each`, a tuplestore per call, 4 µs a change) before grouping them, and held
-- the changes in a materialized CTE that three parts of the statement read. Changes share their
-- properties far more often than not ("plan": "pro", "bucket": "3"), so they are grouped by their
-- properties and attributes first and each group's properties expanded once: a million-device
-- import's fold went from 6.6 s to about 3 s. Where every device has its own property values (an
-- id as a property), the grouping finds nothing to merge and costs one more pass of hashing.
-- With nobody else about, the changes are read in place by each part (two scans, no copy).
CREATE OR REPLACE FUNCTION device_census_fold() RETURNS bigint LANGUAGE plpgsql SET work_mem = '256MB' AS $function$
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
        WITH pending AS %3$s,
        plain_delta AS (
            SELECT %2$s, (last_seen_at AT TIME ZONE 'UTC')::date AS last_seen_on, sum(n)::bigint AS n, count(*) AS changes FROM pending
            GROUP BY %2$s, (last_seen_at AT TIME ZONE 'UTC')::date),
        property_groups AS (
            SELECT properties, %2$s, sum(n)::bigint AS n FROM pending WHERE properties <> '{}'
            GROUP BY properties, %2$s),
        property_delta AS (
            SELECT p.key AS name, p.value #>> '{}' AS value, %2$s, sum(n)::bigint AS n
            FROM property_groups, jsonb_each(property_groups.properties) AS p WHERE jsonb_typeof(p.value) = 'string'
            GROUP BY p.key, p.value #>> '{}', %2$s HAVING sum(n) <> 0),
        plain AS (
            INSERT INTO device_census AS c (%1$s, n) SELECT %1$s, n FROM plain_delta WHERE n <> 0
            ON CONFLICT ON CONSTRAINT device_census_key DO UPDATE SET n = c.n + excluded.n
            RETURNING c.ctid, c.n),
        property AS (
            INSERT INTO device_property_census AS c (name, value, %2$s, n) SELECT name, value, %2$s, n FROM property_delta
            ON CONFLICT ON CONSTRAINT device_property_census_key DO UPDATE SET n = c.n + excluded.n
            RETURNING c.ctid, c.n)
        SELECT (SELECT sum(changes) FROM plain_delta), (SELECT array_agg(ctid) FROM plain WHERE n = 0), (SELECT array_agg(ctid) FROM property WHERE n = 0)
        $sql$, dims, propertyDims,
        CASE WHEN whole THEN 'NOT MATERIALIZED (SELECT * FROM device_census_changes)' ELSE '(DELETE FROM device_census_changes RETURNING *)' END)
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
