-- Waiting requests indexed by run first, then in the order they are claimed. Every claim reads
-- one run's first few: ordered by time alone, that read walked through the entries other runs
-- left behind (a million of them after a large run was sent or deleted, until vacuum) each round.
DROP INDEX deliveries_ready;
CREATE INDEX deliveries_run_ready ON deliveries (run_id, next_attempt_at, id) WHERE status IN ('pending', 'retrying');

-- No statement looks a request up by its device (hygiene and the report go by id and campaign),
-- and every claim and every answer of a request to a device wrote an entry into it.
DROP INDEX deliveries_device;
