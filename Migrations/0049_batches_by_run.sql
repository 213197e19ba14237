-- A claim takes the waiting batches first due run by run (each sending run's first few, by this
-- index) and then the first of those: bounded by the runs sending, whatever the statistics say.
-- Walking device_batches_waiting joined to runs, a planner with statistics older than a step's
-- million devices read every pending batch of the run on each claim instead (98 ms a claim).
-- The index on run_id alone is this one's prefix.
CREATE INDEX device_batches_run_due ON device_batches (run_id, next_attempt_at, id) WHERE status = 'pending';
DROP INDEX device_batches_run;
-- The runs sending, few among every run ever made, are what a claim starts from.
CREATE INDEX runs_sending ON runs (id) WHERE status = 'sending';
-- A claim's lease (owner, expiry, attempts: no index reads them) is written in place of the row
-- when its page has room (a HOT update): otherwise every lease wrote each of the batch's 32
-- tokens into device_batches_tokens again.
ALTER TABLE device_batches SET (fillfactor = 70);
-- A done batch forgets its devices (Recorder.swift): its list of tokens and their variants are
-- no longer needed once each device's outcome is counted, so a waiting batch alone must be a
-- range (after/last) or a list of tokens.
ALTER TABLE device_batches DROP CONSTRAINT device_batches_check;
ALTER TABLE device_batches ADD CONSTRAINT device_batches_range_or_list
    CHECK (status <> 'pending' OR (tokens IS NULL) = (last_token IS NOT NULL));
