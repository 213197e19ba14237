-- A run's kind in one column: how its requests come to be. Two booleans (`per_device`,
-- `streamed`) said it before, and could not tell a one-call send's run from a planned run's, nor
-- a run that failed before it was planned from a run to a topic. This release reads and writes
-- `kind` only. The release before reads and writes the booleans, and keeps serving during an
-- upgrade (and may be rolled back to), so until the next release drops them a trigger keeps both
-- in step as a run is inserted: a row written by this release gets its booleans from its kind, one
-- written by the release before gets its kind from its booleans. (Neither release updates them.)
CREATE FUNCTION run_kind_of(per_device boolean, streamed boolean, audience jsonb, status text, planned integer)
RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN streamed THEN 'devices_streamed'
                WHEN per_device AND audience IS NOT NULL THEN 'devices_planned'
                WHEN per_device THEN 'one_call'
                WHEN status = 'failed' AND planned = 0 THEN 'unplanned'
                ELSE 'fan_out' END
$$;

ALTER TABLE runs ADD COLUMN kind text
    CHECK (kind IN ('fan_out', 'devices_planned', 'devices_streamed', 'one_call', 'unplanned'));
UPDATE runs SET kind = run_kind_of(per_device, streamed, audience, status, planned);

CREATE FUNCTION runs_kind_in_step() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.kind IS NULL THEN
        NEW.kind := run_kind_of(NEW.per_device, NEW.streamed, NEW.audience, NEW.status, NEW.planned);
    ELSE
        NEW.per_device := NEW.kind IN ('devices_planned', 'devices_streamed', 'one_call');
        NEW.streamed := NEW.kind = 'devices_streamed';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER runs_kind_in_step BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION runs_kind_in_step();
ALTER TABLE runs ALTER COLUMN kind SET NOT NULL;

-- Every claim looks for a streamed run with devices left to read (as `runs_streaming` did by the boolean).
CREATE INDEX runs_streaming_kind ON runs (occurrence, id) WHERE kind = 'devices_streamed' AND planning;

-- The fold of finished runs (0019) tells a streamed run (counted as it went) by its kind, and
-- takes its counts' rows in key order, as the recorder does: two folds of the same runs at once (a
-- leader's retention pass and the next leader's) wait for each other instead of deadlocking.
CREATE OR REPLACE FUNCTION herald_fold_runs(ids uuid[]) RETURNS void LANGUAGE sql AS $$
    INSERT INTO run_counts (run_id, variant_key, outcome, hour, shard, n)
    SELECT d.run_id, d.variant_key, o.outcome, o.hour, 0, count(*)
    FROM runs r JOIN deliveries d ON d.run_id = r.id
    CROSS JOIN LATERAL (VALUES ('planned', date_trunc('hour', r.started_at)),
                               (d.status, date_trunc('hour', coalesce(d.sent_at, d.updated_at)))) AS o(outcome, hour)
    WHERE r.id = ANY(ids) AND r.finished_at IS NOT NULL AND NOT r.folded AND r.kind <> 'devices_streamed'
    GROUP BY 1, 2, 3, 4
    ORDER BY 1, 2, 3, 4
    ON CONFLICT (run_id, variant_key, outcome, hour, shard) DO UPDATE SET n = run_counts.n + excluded.n;
    UPDATE runs SET folded = true WHERE id = ANY(ids) AND finished_at IS NOT NULL AND NOT folded;
$$;
