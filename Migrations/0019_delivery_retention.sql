-- A finished run is folded: its counts per variant, outcome and hour go into `run_counts` (what
-- reports and lists read of it from then on), and its requests (`deliveries`) and failed devices
-- (`delivery_failures`) are detail, kept for HERALD_DELIVERY_RETENTION_DAYS and then dropped a
-- partition at a time: no row-by-row DELETE, no vacuum debt, whatever the runs' size.
--
-- Both tables are partitioned by id, in ranges of 10^12 ids. Every few days a scheduler opens the
-- next range (a new partition of each table, and the ids' sequence moved on to its start), so each
-- partition holds the rows of a stretch of days while ids still only grow (cursors over ids keep
-- working), and a statement by id or by run still finds its partition by the key. A partition is
-- dropped once every run with rows in it was folded more than the retention period ago.
ALTER TABLE runs ADD COLUMN folded boolean NOT NULL DEFAULT false;
-- The runs that finished and wait to be folded, and those a partition's drop asks after.
CREATE INDEX runs_unfolded ON runs (finished_at) WHERE NOT folded AND finished_at IS NOT NULL;
CREATE INDEX runs_finished ON runs (finished_at);

-- Folds these finished runs: what their requests became, counted by variant, outcome and hour
-- (the hour the outcome was recorded, as a streamed run's rounds count it), with a `planned` row
-- per variant. A streamed run is counted there already; it is only marked. Folding twice is a no-op.
CREATE FUNCTION herald_fold_runs(ids uuid[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO run_counts (run_id, variant_key, outcome, hour, shard, n)
    SELECT d.run_id, d.variant_key, o.outcome, o.hour, 0, count(*)
    FROM runs r JOIN deliveries d ON d.run_id = r.id
    CROSS JOIN LATERAL (VALUES ('planned', date_trunc('hour', r.started_at)),
                               (d.status, date_trunc('hour', coalesce(d.sent_at, d.updated_at)))) AS o(outcome, hour)
    WHERE r.id = ANY(ids) AND r.finished_at IS NOT NULL AND NOT r.folded AND NOT r.streamed
    GROUP BY 1, 2, 3, 4
    ON CONFLICT (run_id, variant_key, outcome, hour, shard) DO UPDATE SET n = run_counts.n + excluded.n;
    UPDATE runs SET folded = true WHERE id = ANY(ids) AND finished_at IS NOT NULL AND NOT folded;
$$;

-- The partitions opened, by range number (`k`: ids from k * 10^12), and when.
CREATE TABLE delivery_partitions (
    k         bigint      PRIMARY KEY,
    opened_at timestamptz NOT NULL DEFAULT now()
);

-- The tables as they are become the first partition of each: their indexes and constraints are
-- taken over by the partitioned tables' (same definitions), so nothing is rewritten.
DO $$
DECLARE
    span  constant bigint := 1000000000000;
    first bigint := (SELECT last_value FROM deliveries_id_seq) / span;
BEGIN
    ALTER TABLE deliveries RENAME TO deliveries_0;
    ALTER INDEX deliveries_pkey RENAME TO deliveries_0_pkey;
    ALTER INDEX deliveries_campaign RENAME TO deliveries_0_campaign;
    ALTER INDEX deliveries_expiring RENAME TO deliveries_0_expiring;
    ALTER INDEX deliveries_run RENAME TO deliveries_0_run;
    ALTER INDEX deliveries_run_ready RENAME TO deliveries_0_run_ready;
    ALTER TABLE delivery_failures RENAME TO delivery_failures_0;
    ALTER INDEX delivery_failures_pkey RENAME TO delivery_failures_0_pkey;
    ALTER INDEX delivery_failures_campaign RENAME TO delivery_failures_0_campaign;
    ALTER INDEX delivery_failures_run RENAME TO delivery_failures_0_run;
    ALTER INDEX delivery_failures_device RENAME TO delivery_failures_0_device;
    -- The partitioned tables' keys replace these (a partition takes its parent's).
    ALTER TABLE deliveries_0 DROP CONSTRAINT deliveries_run_id_fkey;
    ALTER TABLE delivery_failures_0 DROP CONSTRAINT delivery_failures_run_id_fkey;

    CREATE TABLE deliveries (LIKE deliveries_0 INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (id);
    ALTER TABLE deliveries ADD PRIMARY KEY (id);
    ALTER TABLE deliveries ADD FOREIGN KEY (run_id) REFERENCES runs (id) ON DELETE CASCADE;
    CREATE INDEX deliveries_campaign ON deliveries (campaign_id, id);
    CREATE INDEX deliveries_expiring ON deliveries (expires_at) WHERE expires_at IS NOT NULL AND status IN ('pending', 'retrying');
    CREATE INDEX deliveries_run ON deliveries (run_id, status);
    CREATE INDEX deliveries_run_ready ON deliveries (run_id, next_attempt_at, id) WHERE status IN ('pending', 'retrying');

    CREATE TABLE delivery_failures (LIKE delivery_failures_0 INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY RANGE (id);
    ALTER TABLE delivery_failures ADD PRIMARY KEY (id);
    ALTER TABLE delivery_failures ADD FOREIGN KEY (run_id) REFERENCES runs (id) ON DELETE CASCADE;
    CREATE INDEX delivery_failures_campaign ON delivery_failures (campaign_id, id);
    CREATE INDEX delivery_failures_run ON delivery_failures (run_id);
    CREATE INDEX delivery_failures_device ON delivery_failures (device_token);

    -- The ids' sequence outlives any partition: the partitioned table owns it now.
    ALTER SEQUENCE deliveries_id_seq OWNED BY deliveries.id;
    EXECUTE format('ALTER TABLE deliveries ATTACH PARTITION deliveries_0 FOR VALUES FROM (MINVALUE) TO (%s)', (first + 1) * span);
    EXECUTE format('ALTER TABLE delivery_failures ATTACH PARTITION delivery_failures_0 FOR VALUES FROM (MINVALUE) TO (%s)', (first + 1) * span);
    -- A partition is named by its range number (its first range, for the one taken over).
    IF first <> 0 THEN
        EXECUTE format('ALTER TABLE deliveries_0 RENAME TO %I', 'deliveries_' || first);
        EXECUTE format('ALTER TABLE delivery_failures_0 RENAME TO %I', 'delivery_failures_' || first);
    END IF;
    INSERT INTO delivery_partitions (k) VALUES (first);
END $$;

-- The runs that finished before this release are folded now.
SELECT herald_fold_runs(array(SELECT id FROM runs WHERE finished_at IS NOT NULL));
